// emboss studio: the page. Plain modern JavaScript, no libraries, no network but this server.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (selector) => document.querySelector(selector);
const api = async (path, options = {}) => {
  const response = await fetch(path, {
    ...options,
    headers: { "X-Emboss-Token": token, "Content-Type": "application/json" },
  });
  if (!response.ok) {
    let message = response.statusText;
    try { message = (await response.json()).error; } catch (_) { /* not JSON */ }
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  return response;
};

const studio = {
  schema: {},
  state: null,
  stage: "picture",
  latencies: [],
  pendingEdit: null,
  editInFlight: false,
  renderAbort: null,
  ballAbort: null,
  gesture: false,
};
window.studio = studio;

// MARK: Values as YAML

const yamlNumber = (x) => {
  const rounded = Math.round(x * 10000) / 10000;
  return String(rounded);
};
const yamlColor = (hex) => `"${hex}"`;
const yamlVector = (v) => `[${v.map(yamlNumber).join(", ")}]`;

function hexToRgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
function rgbToHex(rgb) {
  return "#" + rgb.map((c) => Math.max(0, Math.min(255, Math.round(c))).toString(16).padStart(2, "0")).join("");
}
function rgbToHsv([r, g, b]) {
  r /= 255; g /= 255; b /= 255;
  const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
  let h = 0;
  if (d > 0) {
    if (max === r) h = ((g - b) / d) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
    h *= 60;
    if (h < 0) h += 360;
  }
  return [h, max === 0 ? 0 : d / max, max];
}
function hsvToRgb([h, s, v]) {
  const c = v * s, x = c * (1 - Math.abs(((h / 60) % 2) - 1)), m = v - c;
  const [r, g, b] = h < 60 ? [c, x, 0] : h < 120 ? [x, c, 0] : h < 180 ? [0, c, x]
    : h < 240 ? [0, x, c] : h < 300 ? [x, 0, c] : [c, 0, x];
  return [(r + m) * 255, (g + m) * 255, (b + m) * 255];
}
const normalizeHex = (text) => {
  let t = text.trim().toLowerCase();
  if (!t.startsWith("#")) t = "#" + t;
  if (/^#[0-9a-f]{3}$/.test(t)) t = "#" + [...t.slice(1)].map((c) => c + c).join("");
  return /^#[0-9a-f]{6}$/.test(t) ? t : null;
};

// MARK: Edits and renders

// Sends edits; while one request is in flight, later edits wait and the newest wins
// (a slider dragged fast sends only what the server can keep up with).
function edit(edits, { coalesce = false, started = performance.now() } = {}) {
  studio.pendingEdit = { edits: studio.pendingEdit && coalesce ? mergeEdits(studio.pendingEdit.edits, edits) : edits, coalesce, started };
  pump();
}
function mergeEdits(a, b) {
  const out = a.filter((x) => !b.some((y) => y.op === "set" && x.op === "set" && y.path === x.path));
  return out.concat(b);
}
async function pump() {
  if (studio.editInFlight || !studio.pendingEdit) return;
  const { edits, coalesce, started } = studio.pendingEdit;
  studio.pendingEdit = null;
  studio.editInFlight = true;
  try {
    const response = await api("/api/edit", { method: "POST", body: JSON.stringify({ edits, coalesce }) });
    const state = await response.json();
    applyState(state, { rebuild: !coalesce });
    showError(null);
    refresh(started);
  } catch (error) {
    showError(error.message);
  } finally {
    studio.editInFlight = false;
    pump();
  }
}

async function post(path, body = {}) {
  try {
    const response = await api(path, { method: "POST", body: JSON.stringify(body) });
    applyState(await response.json(), { rebuild: true });
    showError(null);
    refresh(performance.now());
  } catch (error) {
    showError(error.message);
  }
}

// Renders the current revision: the chosen stage, then the lit ball. A newer revision
// aborts an older fetch; the server drops a render whose revision is no longer current.
async function refresh(started) {
  const revision = studio.state.revision;
  if (studio.renderAbort) studio.renderAbort.abort();
  const controller = new AbortController();
  studio.renderAbort = controller;
  try {
    const response = await fetch(`/api/render?stage=${studio.stage}&rev=${revision}`, {
      headers: { "X-Emboss-Token": token }, signal: controller.signal,
    });
    if (response.status === 409) return;
    if (!response.ok) throw new Error((await response.json()).error);
    const bitmap = await createImageBitmap(await response.blob());
    if (controller.signal.aborted) return;
    drawPreview(bitmap);
    const latency = performance.now() - started;
    studio.latencies.push({ revision, latency, server: Number(response.headers.get("X-Render-Milliseconds")) });
    $("#latency").textContent = `preview ${latency.toFixed(0)} ms (render ${response.headers.get("X-Render-Milliseconds")} ms)`;
    document.body.dataset.shownRevision = String(revision);
  } catch (error) {
    if (error.name !== "AbortError") showError(error.message);
    return;
  }
  refreshBall(revision);
}

async function refreshBall(revision) {
  if (studio.ballAbort) studio.ballAbort.abort();
  const controller = new AbortController();
  studio.ballAbort = controller;
  try {
    const response = await fetch(`/api/render?stage=ball&rev=${revision}`, {
      headers: { "X-Emboss-Token": token }, signal: controller.signal,
    });
    if (!response.ok) return;
    studio.ballImage = await createImageBitmap(await response.blob());
    drawBall();
  } catch (_) { /* superseded */ }
}

function drawPreview(bitmap) {
  const canvas = $("#preview");
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const context = canvas.getContext("2d");
  context.clearRect(0, 0, canvas.width, canvas.height);
  context.drawImage(bitmap, 0, 0);
}

// MARK: The ball and its light handles

// A light's handle sits where its highlight is: the half vector between the light and the
// viewer (0, 0, 1). Dragging a handle puts the highlight there: L = 2 (h.z) h - V.
function lightDirection(light) {
  const p = light.position;
  const length = Math.hypot(p[0], p[1], p[2]) || 1;
  return p.map((c) => c / length);
}
function handleOf(light) {
  const l = lightDirection(light);
  const h = [l[0], l[1], l[2] + 1];
  const length = Math.hypot(...h);
  if (length < 1e-6) return null;
  return h.map((c) => c / length);
}
function ballPoint(canvas, event) {
  const rect = canvas.getBoundingClientRect();
  let u = ((event.clientX - rect.left) / rect.width) * 2 - 1;
  let v = 1 - ((event.clientY - rect.top) / rect.height) * 2;
  const r = Math.hypot(u, v);
  if (r > 0.98) { u *= 0.98 / r; v *= 0.98 / r; }
  return [u, v, Math.sqrt(Math.max(0, 1 - u * u - v * v))];
}

function drawBall() {
  const canvas = $("#ball");
  const context = canvas.getContext("2d");
  const size = canvas.width;
  context.clearRect(0, 0, size, size);
  if (studio.ballImage) context.drawImage(studio.ballImage, 0, 0, size, size);
  if (!studio.state) return;
  studio.state.values.lights.forEach((light, index) => {
    const h = handleOf(light);
    if (!h) return;
    const x = ((h[0] + 1) / 2) * size, y = ((1 - h[1]) / 2) * size;
    context.beginPath();
    context.arc(x, y, index === studio.dragging ? 11 : 9, 0, Math.PI * 2);
    context.fillStyle = light.color;
    context.fill();
    context.lineWidth = 2.5;
    context.strokeStyle = "#000";
    context.stroke();
    context.lineWidth = 1.5;
    context.strokeStyle = "#fff";
    context.stroke();
    context.fillStyle = "#fff";
    context.font = "bold 12px system-ui, sans-serif";
    context.fillText(String(index + 1), x + 12, y - 10);
  });
}

function lightEditsFor(index, h) {
  const light = studio.state.values.lights[index];
  const l = [2 * h[2] * h[0], 2 * h[2] * h[1], 2 * h[2] * h[2] - 1];
  if (light.byAngle) {
    const angle = (Math.atan2(l[1], l[0]) * 180) / Math.PI;
    const altitude = (Math.asin(Math.max(-1, Math.min(1, l[2]))) * 180) / Math.PI;
    return [
      { op: "set", path: `lights[${index}].angle`, value: yamlNumber(Math.round(angle * 10) / 10) },
      { op: "set", path: `lights[${index}].altitude`, value: yamlNumber(Math.round(altitude * 10) / 10) },
    ];
  }
  const p = light.position;
  const distance = light.kind === "distant" ? 1 : Math.hypot(p[0], p[1], p[2]) || 1;
  const position = l.map((c) => Math.round(c * distance * 1000) / 1000);
  return [{ op: "set", path: `lights[${index}].position`, value: yamlVector(position) }];
}

function setUpBall() {
  const canvas = $("#ball");
  canvas.addEventListener("pointerdown", (event) => {
    if (!studio.state) return;
    const rect = canvas.getBoundingClientRect();
    let best = null, bestDistance = 18;
    studio.state.values.lights.forEach((light, index) => {
      const h = handleOf(light);
      if (!h) return;
      const x = rect.left + ((h[0] + 1) / 2) * rect.width, y = rect.top + ((1 - h[1]) / 2) * rect.height;
      const d = Math.hypot(event.clientX - x, event.clientY - y);
      if (d < bestDistance) { best = index; bestDistance = d; }
    });
    if (best === null) return;
    studio.dragging = best;
    studio.dragMoved = false;
    canvas.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  canvas.addEventListener("pointermove", (event) => {
    if (studio.dragging === undefined) return;
    const h = ballPoint(canvas, event);
    const index = studio.dragging;
    edit(lightEditsFor(index, h), { coalesce: studio.dragMoved, started: performance.now() });
    studio.dragMoved = true;
    // The handle follows the pointer at once; the numbers follow the server's state.
    const light = studio.state.values.lights[index];
    const l = [2 * h[2] * h[0], 2 * h[2] * h[1], 2 * h[2] * h[2] - 1];
    const distance = light.kind === "distant" ? 1 : Math.hypot(...light.position) || 1;
    light.position = l.map((c) => c * distance);
    drawBall();
  });
  const end = () => { studio.dragging = undefined; drawBall(); };
  canvas.addEventListener("pointerup", end);
  canvas.addEventListener("pointercancel", end);
}

// MARK: Controls

function applyState(state, { rebuild }) {
  const structureChanged = !studio.state
    || studio.state.values.lights.length !== state.values.lights.length
    || studio.state.values.softboxes.length !== state.values.softboxes.length
    || studio.state.values.lights.some((l, i) => l.kind !== state.values.lights[i].kind || l.byAngle !== state.values.lights[i].byAngle)
    || studio.state.path !== state.path;
  studio.state = state;
  document.body.dataset.revision = String(state.revision);
  $("#file").textContent = state.path + (state.unsaved ? " (unsaved)" : "");
  $("#undo").disabled = !state.canUndo;
  $("#redo").disabled = !state.canRedo;
  $("#save").disabled = !state.unsaved;
  $("#source").textContent = state.text;
  if (state.notice) showNotice(state.notice);
  if (rebuild || structureChanged) buildControls();
  else updateControls();
  drawBall();
}

function showError(message) {
  const box = $("#error");
  box.hidden = !message;
  box.textContent = message || "";
}
function showNotice(message) {
  const box = $("#notice");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(studio.noticeTimer);
  studio.noticeTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

// Every control knows how to read its value from the state (`read`) and the edits its new
// value makes (`write`). Built from the schema: ranges, units and help come from there.
const controls = [];

function valueOf(key) {
  const v = studio.state.values;
  if (key in v.numbers) return v.numbers[key];
  return v.texts[key];
}

function row(parent, entry, label) {
  const div = document.createElement("div");
  div.className = "row";
  const name = document.createElement("label");
  name.textContent = label;
  name.title = entry ? entry.help + (entry.unit ? ` (${entry.unit})` : "") : "";
  div.appendChild(name);
  parent.appendChild(div);
  return div;
}

function numberControl(parent, entry, label, read, write) {
  const div = row(parent, entry, label);
  const slider = document.createElement("input");
  slider.type = "range";
  const field = document.createElement("input");
  field.type = "number";
  let min = entry.min, max = entry.max;
  // Wide ranges get a practical slider span; the number field takes the whole range.
  const spans = { "surface.shininess": [1, 1024], "lights[].intensity": [0, 5], "environment.intensity": [0, 5],
    "environment.softboxes[].intensity": [0, 10], "relief.radius": [1, 60], "relief.depth": [0, 4],
    "relief.scale": [0, 60], "relief.soften": [0, 20], "shadow.distance": [0, 40],
    "shadow.softness": [0, 40], "shadow.angle": [-180, 180], "occlusion.radius": [0.5, 40],
    "detail.brushed-angle": [-180, 180], "detail.brushed-width": [0.25, 10], "detail.brushed-length": [2, 200], "detail.seed": [0, 100],
    "detail.hammered-size": [1, 60], "detail.sandblasted-size": [0.1, 10], "detail.waviness-size": [5, 200], "detail.grain-spacing": [1, 40],
    "detail.grain-angle": [-180, 180], "detail.speckle-size": [0.25, 10], "camera.distance": [0, 5000] };
  if (spans[entry.key]) [min, max] = spans[entry.key];
  slider.min = min; slider.max = max;
  // A round step, about a 500th of the span: values written to the file stay readable.
  slider.step = entry.kind === "integer" ? 1 : Math.pow(10, Math.floor(Math.log10((max - min) / 500)));
  field.min = entry.min; field.max = entry.max;
  field.step = entry.kind === "integer" ? 1 : "any";
  field.className = "number";
  slider.setAttribute("aria-label", label);
  slider.dataset.key = entry.key;
  div.append(slider, field);
  if (entry.unit) {
    const unit = document.createElement("span");
    unit.className = "unit";
    unit.textContent = entry.unit;
    div.appendChild(unit);
  }
  const control = {
    update() {
      const v = read();
      if (v === undefined) { field.value = ""; return; }
      if (document.activeElement !== slider) slider.value = v;
      if (document.activeElement !== field) field.value = v;
    },
  };
  slider.addEventListener("pointerdown", () => { studio.gesture = false; });
  slider.addEventListener("input", (event) => {
    field.value = slider.value;
    edit(write(Number(slider.value)), { coalesce: studio.gesture, started: event.timeStamp || performance.now() });
    studio.gesture = true;
  });
  slider.addEventListener("change", () => { studio.gesture = false; });
  field.addEventListener("change", (event) => {
    if (field.value === "") return;
    edit(write(Number(field.value)), { started: event.timeStamp || performance.now() });
  });
  controls.push(control);
  control.update();
}

function colorControl(parent, entry, label, read, write, { hueBrightness = false } = {}) {
  const div = row(parent, entry, label);
  const picker = document.createElement("input");
  picker.type = "color";
  const hex = document.createElement("input");
  hex.type = "text";
  hex.className = "hex";
  hex.size = 8;
  hex.setAttribute("aria-label", label + " hex");
  div.append(picker, hex);
  let hue, brightness;
  if (hueBrightness) {
    hue = document.createElement("input");
    hue.type = "range"; hue.min = 0; hue.max = 360; hue.step = 1; hue.title = "hue (degrees)";
    brightness = document.createElement("input");
    brightness.type = "range"; brightness.min = 0; brightness.max = 100; brightness.step = 1;
    brightness.title = "brightness (%)";
    hue.className = brightness.className = "small";
    const wrap = document.createElement("div");
    wrap.className = "hsv";
    wrap.append("hue", hue, "brightness", brightness);
    div.appendChild(wrap);
  }
  const control = {
    update() {
      const v = read();
      picker.value = v;
      if (document.activeElement !== hex) hex.value = v;
      if (hue && document.activeElement !== hue && document.activeElement !== brightness) {
        const [h, , b] = rgbToHsv(hexToRgb(v));
        hue.value = h; brightness.value = b * 100;
      }
    },
  };
  picker.addEventListener("input", (event) => {
    edit(write(picker.value), { coalesce: studio.gesture, started: event.timeStamp });
    studio.gesture = true;
  });
  picker.addEventListener("change", () => { studio.gesture = false; });
  hex.addEventListener("change", (event) => {
    const value = normalizeHex(hex.value);
    if (!value) { showError(`${hex.value}: a color is #rrggbb or #rgb`); return; }
    edit(write(value), { started: event.timeStamp });
  });
  if (hue) {
    const fromHsv = (event) => {
      const [, s] = rgbToHsv(hexToRgb(read()));
      const value = rgbToHex(hsvToRgb([Number(hue.value) % 360, s || (Number(brightness.value) > 0 ? 0 : 0), Number(brightness.value) / 100]));
      edit(write(value), { coalesce: studio.gesture, started: event.timeStamp });
      studio.gesture = true;
    };
    for (const input of [hue, brightness]) {
      input.addEventListener("input", fromHsv);
      input.addEventListener("change", () => { studio.gesture = false; });
    }
  }
  controls.push(control);
  control.update();
}

function choiceControl(parent, entry, label, read, write) {
  const div = row(parent, entry, label);
  const select = document.createElement("select");
  for (const name of entry.choices) {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    select.appendChild(option);
  }
  select.setAttribute("aria-label", label);
  div.appendChild(select);
  select.addEventListener("change", (event) => edit(write(select.value), { started: event.timeStamp }));
  const control = { update() { select.value = read(); } };
  controls.push(control);
  control.update();
}

function textControl(parent, entry, label, read, write) {
  const div = row(parent, entry, label);
  const input = document.createElement("input");
  input.type = "text";
  input.className = "wide";
  div.appendChild(input);
  input.addEventListener("change", (event) => edit(write(input.value), { started: event.timeStamp }));
  const control = { update() { if (document.activeElement !== input) input.value = read() ?? ""; } };
  controls.push(control);
  control.update();
}

function vectorControl(parent, entry, label, read, write) {
  const div = row(parent, entry, label);
  const fields = [0, 1, 2].map((axis) => {
    const input = document.createElement("input");
    input.type = "number";
    input.step = 0.1;
    input.className = "number";
    input.title = "xyz"[axis];
    input.addEventListener("change", (event) => {
      const v = fields.map((f) => Number(f.value));
      edit(write(v), { started: event.timeStamp });
    });
    div.appendChild(input);
    return input;
  });
  if (entry.unit) {
    const unit = document.createElement("span");
    unit.className = "unit";
    unit.textContent = entry.unit;
    div.appendChild(unit);
  }
  const control = {
    update() {
      const v = read();
      fields.forEach((f, i) => { if (document.activeElement !== f) f.value = Math.round(v[i] * 1000) / 1000; });
    },
  };
  controls.push(control);
  control.update();
}

function section(title) {
  const box = document.createElement("details");
  box.open = true;
  const summary = document.createElement("summary");
  summary.textContent = title;
  box.appendChild(summary);
  $("#controls").appendChild(box);
  return box;
}

// The control for a schema entry at a key path (`surface.shininess`, `lights[1].angle`).
function controlFor(parent, key, path, label, read) {
  const entry = studio.schema[key];
  const set = (yaml) => [{ op: "set", path, value: yaml }];
  switch (entry.kind) {
    case "number":
    case "integer":
      return numberControl(parent, entry, label, read, (x) => set(yamlNumber(x)));
    case "color":
      return colorControl(parent, entry, label, read, (x) => set(yamlColor(x)), { hueBrightness: key.startsWith("lights") });
    case "choice":
      return choiceControl(parent, entry, label, read, (x) => set(x));
    case "vector":
      return vectorControl(parent, entry, label, read, (v) => set(yamlVector(v)));
    default:
      return textControl(parent, entry, label, read, (x) => set(JSON.stringify(x)));
  }
}

function buildControls() {
  controls.length = 0;
  const root = $("#controls");
  root.textContent = "";
  const values = () => studio.state.values;
  const scalar = (key) => () => valueOf(key);

  const surface = section("Surface");
  for (const key of ["surface.base", "surface.specular", "surface.shininess", "surface.ambient", "surface.metallic", "surface.model", "surface.fresnel"]) {
    controlFor(surface, key, key, key.split(".")[1], scalar(key));
  }

  const lights = section("Lights");
  values().lights.forEach((light, i) => {
    const card = document.createElement("fieldset");
    card.className = "card";
    const legend = document.createElement("legend");
    legend.textContent = `Light ${i + 1}`;
    card.appendChild(legend);
    const tools = document.createElement("span");
    tools.className = "tools";
    const button = (text, title, action, disabled = false) => {
      const b = document.createElement("button");
      b.textContent = text; b.title = title; b.disabled = disabled;
      b.addEventListener("click", action);
      tools.appendChild(b);
    };
    button("↑", "move up", () => edit([{ op: "move", list: "lights", from: i, to: i - 1 }]), i === 0);
    button("↓", "move down", () => edit([{ op: "move", list: "lights", from: i, to: i + 1 }]), i === values().lights.length - 1);
    button("✕", "remove", () => edit([{ op: "remove", list: "lights", index: i }]), values().lights.length === 1);
    legend.appendChild(tools);
    const p = `lights[${i}]`;
    const at = () => values().lights[i];
    controlFor(card, "lights[].kind", `${p}.kind`, "kind", () => at().kind);
    if (at().byAngle) {
      controlFor(card, "lights[].angle", `${p}.angle`, "angle", () => at().angle);
      controlFor(card, "lights[].altitude", `${p}.altitude`, "altitude", () => at().altitude);
    } else {
      controlFor(card, "lights[].position", `${p}.position`, at().kind === "distant" ? "direction" : "position", () => at().position);
      const numbers = document.createElement("div");
      numbers.className = "row readout";
      card.appendChild(numbers);
      controls.push({ update() { numbers.textContent = `angle ${at().angle.toFixed(1)}°, altitude ${at().altitude.toFixed(1)}°`; } });
      controls[controls.length - 1].update();
    }
    controlFor(card, "lights[].color", `${p}.color`, "color", () => at().color);
    controlFor(card, "lights[].intensity", `${p}.intensity`, "intensity", () => at().intensity);
    if (at().kind === "spot") {
      controlFor(card, "lights[].target", `${p}.target`, "target", () => at().target);
      controlFor(card, "lights[].cone", `${p}.cone`, "cone", () => at().cone);
    }
    lights.appendChild(card);
  });
  const add = document.createElement("button");
  add.textContent = "Add light";
  add.id = "add-light";
  add.addEventListener("click", () => edit([{ op: "append", list: "lights", fields: [["angle", "45"], ["altitude", "30"], ["color", '"#ffffff"'], ["intensity", "0.5"]] }]));
  lights.appendChild(add);

  const environment = section("Environment");
  for (const key of ["environment.intensity", "environment.sky", "environment.horizon", "environment.ground", "environment.band", "environment.band-width", "environment.horizon-angle", "environment.horizon-softness"]) {
    controlFor(environment, key, key, key.split(".")[1], scalar(key));
  }
  values().softboxes.forEach((box, i) => {
    const card = document.createElement("fieldset");
    card.className = "card";
    const legend = document.createElement("legend");
    legend.textContent = `Softbox ${i + 1} `;
    const remove = document.createElement("button");
    remove.textContent = "✕"; remove.title = "remove";
    remove.addEventListener("click", () => edit([{ op: "remove", list: "environment.softboxes", index: i }]));
    legend.appendChild(remove);
    card.appendChild(legend);
    for (const name of ["angle", "altitude", "width", "height", "color", "intensity"]) {
      controlFor(card, `environment.softboxes[].${name}`, `environment.softboxes[${i}].${name}`, name, () => values().softboxes[i][name]);
    }
    environment.appendChild(card);
  });
  const addBox = document.createElement("button");
  addBox.textContent = "Add softbox";
  // A new softbox has the parameter table's defaults (the schema's), as a file that lists
  // one without its values would.
  addBox.addEventListener("click", () => edit([{ op: "append", list: "environment.softboxes",
    fields: ["angle", "altitude", "width", "height"].map((name) => [name, studio.schema[`environment.softboxes[].${name}`].defaultValue]) }]));
  environment.appendChild(addBox);

  const relief = section("Relief");
  for (const key of ["relief.radius", "relief.profile", "relief.depth", "relief.soften", "relief.direction"]) {
    if (key === "relief.depth" && valueOf(key) === undefined) continue;
    if (key === "relief.depth" && typeof valueOf(key) === "string") {
      controlFor(relief, "description", key, "depth", scalar(key));
      continue;
    }
    controlFor(relief, key, key, key.split(".")[1], scalar(key));
  }
  if (valueOf("relief.scale") !== undefined) controlFor(relief, "relief.scale", "relief.scale", "scale", scalar("relief.scale"));

  const shadow = section("Shadow");
  // The angle shows the brightest light's until it is given.
  for (const key of ["shadow.opacity", "shadow.distance", "shadow.softness", "shadow.color", "shadow.angle"]) {
    controlFor(shadow, key, key, key.split(".")[1], scalar(key));
  }

  for (const key of ["occlusion.strength", "occlusion.radius"]) {
    controlFor(shadow, key, key, key.replace(".", " "), scalar(key));
  }

  const detail = section("Detail");
  for (const key of ["detail.brushed", "detail.brushed-angle", "detail.brushed-width", "detail.brushed-length",
    "detail.hammered", "detail.hammered-size", "detail.sandblasted", "detail.sandblasted-size",
    "detail.waviness", "detail.waviness-size",
    "detail.grain", "detail.grain-spacing", "detail.grain-angle", "detail.grain-figure", "detail.grain-color",
    "detail.speckle", "detail.speckle-size", "detail.speckle-color", "detail.seed"]) {
    controlFor(detail, key, key, key.split(".")[1], scalar(key));
  }

  // The plate: the letters' surface and detail keys, under plate. (Setting any of them puts
  // the letters on a plate.)
  const plate = section("Plate");
  for (const key of ["surface.base", "surface.specular", "surface.shininess", "surface.metallic",
    "detail.brushed", "detail.brushed-angle", "detail.hammered", "detail.sandblasted",
    "detail.grain", "detail.grain-spacing", "detail.grain-color", "detail.speckle", "detail.speckle-color"]) {
    controlFor(plate, key, `plate.${key}`, key.split(".")[1], scalar(`plate.${key}`));
  }

  const look = section("Picture");
  const background = row(look, studio.schema.background, "background");
  const transparent = document.createElement("input");
  transparent.type = "checkbox";
  transparent.title = "transparent";
  const color = document.createElement("input");
  color.type = "color";
  background.append(transparent, "transparent", color);
  transparent.addEventListener("change", () => edit([{ op: "set", path: "background", value: transparent.checked ? "transparent" : yamlColor(color.value) }]));
  color.addEventListener("change", () => edit([{ op: "set", path: "background", value: yamlColor(color.value) }]));
  controls.push({ update() { const v = valueOf("background"); transparent.checked = v === "transparent"; if (v !== "transparent") color.value = v; } });
  controls[controls.length - 1].update();
  controlFor(look, "camera.distance", "camera.distance", "camera distance", scalar("camera.distance"));
  controlFor(look, "shading.size", "shading.size", "ball size", scalar("shading.size"));
  controlFor(look, "description", "description", "description", scalar("description"));
  // Help from the schema on every label.
  $("#controls").querySelectorAll("label").forEach((l) => l.setAttribute("tabindex", "-1"));
}

function updateControls() {
  for (const control of controls) control.update();
}

// MARK: Scene, stages, files

function setUpToolbar() {
  $("#undo").addEventListener("click", () => post("/api/undo"));
  $("#redo").addEventListener("click", () => post("/api/redo"));
  $("#save").addEventListener("click", () => post("/api/save"));
  $("#save-as").addEventListener("click", () => {
    const name = prompt("Save as a new material file next to this one (name.yaml):", "my-material.yaml");
    if (name) post("/api/save-as", { name });
  });
  document.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey)) return;
    if (event.key === "z" && !event.shiftKey) { event.preventDefault(); post("/api/undo"); }
    else if (event.key === "y" || (event.key === "Z" && event.shiftKey) || (event.key === "z" && event.shiftKey)) { event.preventDefault(); post("/api/redo"); }
    else if (event.key === "s") { event.preventDefault(); post("/api/save"); }
  });
  for (const input of document.querySelectorAll("input[name=stage]")) {
    input.addEventListener("change", () => { studio.stage = input.value; refresh(performance.now()); });
  }
  const sendScene = () => post("/api/scene", {
    text: $("#scene-text").value, font: $("#scene-font").value || null, size: Number($("#scene-size").value),
  });
  for (const id of ["#scene-text", "#scene-font", "#scene-size"]) $(id).addEventListener("change", sendScene);
}

async function start() {
  const schema = await (await api("/api/schema")).json();
  for (const entry of schema.parameters) studio.schema[entry.key] = entry;
  const state = await (await api("/api/state")).json();
  $("#scene-text").value = state.scene.text;
  $("#scene-font").value = state.scene.font || "";
  $("#scene-size").value = state.scene.size;
  applyState(state, { rebuild: true });
  setUpToolbar();
  setUpBall();
  refresh(performance.now());
  // Another editor may change the file: the server reloads it and says so.
  setInterval(async () => {
    if (studio.editInFlight || studio.dragging !== undefined) return;
    try {
      const state = await (await api("/api/state")).json();
      if (state.revision !== studio.state.revision) {
        applyState(state, { rebuild: true });
        refresh(performance.now());
      } else if (state.notice) showNotice(state.notice);
    } catch (_) { /* the server stopped */ }
  }, 1000);
}

start().catch((error) => showError(error.message));
