#include <fribidi.h>

// FriBidi's paragraph directions and type tests are macros Swift cannot import.
static inline FriBidiParType emboss_fribidi_par_ltr(void) { return FRIBIDI_PAR_LTR; }
static inline FriBidiParType emboss_fribidi_par_rtl(void) { return FRIBIDI_PAR_RTL; }
static inline FriBidiParType emboss_fribidi_par_auto(void) { return FRIBIDI_PAR_ON; }
static inline int emboss_fribidi_par_is_rtl(FriBidiParType type) {
  return FRIBIDI_IS_RTL(type) ? 1 : 0;
}
// Whitespace, explicit embedding and boundary-neutral characters: rule L1 resets those at a
// line's end to the paragraph's level.
static inline int emboss_fribidi_is_trailing_neutral(FriBidiCharType type) {
  return FRIBIDI_IS_EXPLICIT_OR_BN_OR_WS(type) || FRIBIDI_IS_ISOLATE(type) ? 1 : 0;
}
