// PackFS's web page (index.html beside it): the packs of the mount it is served from, live.
//
// Every second it reads packs.json (each pack's progress.json with its name, bounds and whether
// it shows web-style.json; docs/web.md) and status.json, both relative to the page, never cached
// (their sizes often stay the same while their figures change, so a revalidation could keep an
// old copy). The list follows packs.json: a pack that went leaves it, a new one joins it. The
// selected pack is drawn by MapLibre GL JS from its web-style.json, or, without one, as its
// coverage over a plain background; its coverage.geojson is drawn on top, an outline per zoom.
// Every URL is under the page's own: nothing leaves the device.
"use strict";

(function () {
  const POLL_MS = 1000;
  /// While a pack downloads, its coverage grows: read again every this many polls.
  const COVERAGE_POLLS = 3;
  const COVERAGE = "packfs-coverage";
  const PLAIN_STYLE = {
    version: 8,
    sources: {},
    layers: [{ id: "background", type: "background", paint: { "background-color": "#e9edf0" } }],
  };

  // What the browser test reads: idle once the selected pack is drawn, every map error, the map.
  const page = (window.packfsPage = { idle: false, errors: [], selected: null, polls: 0, packs: [], map: null });

  const list = document.getElementById("pack-list");
  const items = new Map(); // pack name -> its <li>
  let packs = new Map(); // pack name -> its entry of packs.json
  let map = null;
  let selected = null; // { name, webStyle }
  let polls = 0;
  let detailsShown = 0; // how many times the files were listed: a late answer for an old list is dropped

  /// A URL relative to the page, made absolute (MapLibre's workers resolve nothing relative).
  function here(path) {
    return new URL(path, document.baseURI).href;
  }

  function packPath(name, file) {
    return "packs/" + encodeURIComponent(name) + "/" + file;
  }

  async function fetchJSON(path) {
    const response = await fetch(here(path), { cache: "no-store" });
    if (!response.ok) throw new Error(path + ": HTTP " + response.status);
    return response.json();
  }

  function bytes(count) {
    if (count === null || count === undefined) return "…";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let value = count;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit += 1;
    }
    return (unit === 0 ? String(value) : value.toFixed(1)) + " " + units[unit];
  }

  function count(value) {
    return value === null || value === undefined ? "…" : Number(value).toLocaleString("en");
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // MARK: the database's figures

  function showFigures(status) {
    const figure = (name, text) => {
      document.querySelector(`[data-figure="${name}"]`).textContent = text;
    };
    if (status.problem) {
      notice("The database: " + status.problem);
      return;
    }
    const ambient = status.ambient_cache || {};
    const disk = status.disk || {};
    figure("size", bytes(status.bytes) + " · " + count(status.packs) + (status.packs === 1 ? " pack" : " packs"));
    figure("ambient", bytes(ambient.bytes) + " of " + bytes(ambient.limit));
    const quota = disk.quota ? " · " + bytes(Math.max(0, disk.quota - disk.used_bytes)) + " left of the quota" : "";
    figure("free", bytes(disk.available_bytes) + " on the disk" + quota);
    figure("transport", status.transport || "…");
  }

  function notice(text) {
    const node = document.getElementById("notice");
    node.textContent = text || "";
    node.hidden = !text;
  }

  // MARK: the list

  function showPacks(entries) {
    const fresh = new Map(entries.map((entry) => [entry.name, entry]));
    for (const [name, item] of items) {
      if (!fresh.has(name)) {
        item.remove();
        items.delete(name);
      }
    }
    // In packs.json's order (the packs' ids): new packs join at the end.
    for (const entry of entries) {
      let item = items.get(entry.name);
      if (!item) {
        item = makeItem(entry.name);
        items.set(entry.name, item);
      }
      list.appendChild(item);
      updateItem(item, entry);
    }
    packs = fresh;
    page.packs = entries.map((entry) => entry.name);
    document.getElementById("no-packs").hidden = entries.length > 0;
  }

  function makeItem(name) {
    const item = element("li", "pack");
    item.dataset.name = name;
    const button = element("button", "select");
    button.type = "button";
    button.append(element("span", "name", name), element("span", "state"));
    button.addEventListener("click", () => select(name));
    const bar = element("div", "bar");
    bar.setAttribute("role", "progressbar");
    bar.setAttribute("aria-label", name + " progress");
    bar.setAttribute("aria-valuemin", "0");
    bar.setAttribute("aria-valuemax", "100");
    bar.append(element("div", "fill"));
    item.append(button, bar, element("div", "figures"), element("p", "error"));
    return item;
  }

  function updateItem(item, entry) {
    const counting = entry.counting === true;
    const required = entry.required_resources || 0;
    const done = entry.completed_resources || 0;
    const fraction = entry.state === "complete" ? 1 : required > 0 ? Math.min(1, done / required) : 0;
    item.dataset.state = entry.state;
    item.dataset.completed = counting ? "" : String(done);
    item.dataset.required = String(required);
    item.querySelector(".state").textContent = counting ? "counting" : entry.state;
    // While a download plans (its style and sources still coming), the total is not known.
    const known = !counting && (entry.state !== "active" || entry.required_resources_is_precise === true);
    const bar = item.querySelector(".bar");
    bar.classList.toggle("unknown", !known);
    if (known) bar.setAttribute("aria-valuenow", String(Math.round(fraction * 100)));
    else bar.removeAttribute("aria-valuenow");
    bar.querySelector(".fill").style.width = known ? (fraction * 100).toFixed(1) + "%" : "";
    const tiles = count(entry.completed_tiles) + " / " + count(entry.required_tiles) + " tiles";
    const resources = count(entry.completed_resources) + " / " + count(required) + " resources";
    item.querySelector(".figures").textContent = tiles + " · " + resources + " · " + bytes(entry.completed_bytes);
    const error = item.querySelector(".error");
    error.textContent = entry.error || "";
    error.hidden = !entry.error;
    item.classList.toggle("selected", selected !== null && selected.name === entry.name);
  }

  // MARK: the map

  function makeMap() {
    map = new maplibregl.Map({
      container: "map",
      style: PLAIN_STYLE,
      center: [0, 20],
      zoom: 1,
      attributionControl: { compact: true },
      // Keep what was drawn: a screenshot of the page shows the map.
      canvasContextAttributes: { preserveDrawingBuffer: true },
    });
    page.map = map;
    map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
    map.on("error", (event) => {
      const error = event.error;
      const message = error ? String(error.message || error) : "error event";
      page.errors.push(error && error.url && !message.includes(error.url) ? message + " " + error.url : message);
    });
    map.on("idle", () => {
      if (selected && map.isStyleLoaded() && map.getLayer(COVERAGE)) page.idle = true;
    });
  }

  /// Draws pack `name`: its web style (or the plain background), its coverage on top, fitted
  /// to its bounds. Called on a click, at the start, and when packs.json changes what it draws.
  function select(name) {
    const entry = packs.get(name);
    if (!entry) return;
    selected = { name: name, webStyle: entry.web_style === true };
    page.selected = name;
    page.idle = false;
    history.replaceState(null, "", "#" + encodeURIComponent(name));
    for (const [other, item] of items) item.classList.toggle("selected", other === name);
    showDetails(entry);
    if (!map) return;
    // Before setStyle: a style given as an object may load before it returns.
    map.once("style.load", () => {
      if (selected && selected.name === name) addCoverage(name);
    });
    map.setStyle(selected.webStyle ? here(packPath(name, "web-style.json")) : PLAIN_STYLE, { diff: false });
    if (entry.bounds) fit(entry.bounds);
  }

  function addCoverage(name) {
    if (map.getSource(COVERAGE)) return;
    map.addSource(COVERAGE, { type: "geojson", data: here(packPath(name, "coverage.geojson")) });
    // One outline per zoom, from blue (low zooms, large tiles) to red (the deepest zoom).
    map.addLayer({
      id: COVERAGE,
      type: "line",
      source: COVERAGE,
      paint: {
        "line-color": ["interpolate", ["linear"], ["get", "zoom"], 0, "#2b6cb0", 8, "#805ad5", 16, "#c53030"],
        "line-width": ["interpolate", ["linear"], ["get", "zoom"], 0, 1, 16, 2.5],
        "line-opacity": 0.85,
      },
    });
  }

  function fit(bounds) {
    const [west, south, east, north] = bounds;
    map.fitBounds([[west, south], [east, north]], { padding: 32, animate: false, maxZoom: 16 });
  }

  function clearSelection() {
    selected = null;
    page.selected = null;
    page.idle = false;
    document.getElementById("details").hidden = true;
    if (map) map.setStyle(PLAIN_STYLE, { diff: false });
  }

  /// Keeps the map in step with packs.json: the selected pack removed, a style that appeared,
  /// a download's coverage growing.
  function followSelection() {
    if (selected && !packs.has(selected.name)) clearSelection();
    if (!selected) {
      const first = packs.get(wantedName()) || [...packs.values()].find((e) => e.state === "complete") || packs.values().next().value;
      if (first) select(first.name);
      return;
    }
    const entry = packs.get(selected.name);
    if ((entry.web_style === true) !== selected.webStyle) return select(selected.name);
    if (entry.state === "active" && polls % COVERAGE_POLLS === 0 && map && map.getSource(COVERAGE)) {
      // A new query each time: a revalidation could keep an old copy of a grown coverage of the
      // same size (nginx's ETag is the file's size and second).
      map.getSource(COVERAGE).setData(here(packPath(selected.name, "coverage.geojson?poll=" + polls)));
    }
    if (!entry.bounds) fitCoverage();
  }

  /// The pack the address names (`#NAME`), if any.
  function wantedName() {
    try {
      return decodeURIComponent(location.hash.slice(1));
    } catch (error) {
      return null; // not percent-encoding: no pack has that name
    }
  }

  /// A pack without bounds (imported from a file): fitted once to its coverage's deepest zoom.
  function fitCoverage() {
    if (!map || selected.fitted) return;
    selected.fitted = true;
    const name = selected.name;
    fetchJSON(packPath(name, "coverage.geojson"))
      .then((coverage) => {
        const deepest = (coverage.features || []).reduce((a, b) => (!a || b.properties.zoom > a.properties.zoom ? b : a), null);
        if (!deepest || !selected || selected.name !== name) return;
        const points = deepest.geometry.coordinates.flat(2);
        const xs = points.map((p) => p[0]);
        const ys = points.map((p) => p[1]);
        fit([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]);
      })
      .catch(() => {
        if (selected && selected.name === name) selected.fitted = false;
      });
  }

  // MARK: the selected pack's files

  function showDetails(entry) {
    document.getElementById("details").hidden = false;
    document.getElementById("pack-title").textContent = entry.name;
    document.getElementById("pack-note").textContent = entry.web_style
      ? "Drawn from its web-style.json; the outlines are its coverage, one per zoom."
      : "No style: its coverage, one outline per zoom, over a plain background.";
    document.getElementById("files").replaceChildren();
    if (entry.web_style) fileLink("web-style.json", here(packPath(entry.name, "web-style.json")));
    fileLink("progress.json", here(packPath(entry.name, "progress.json")));
    fileLink("coverage.geojson", here(packPath(entry.name, "coverage.geojson")));
    fileLink(entry.name + ".region", here("packs/" + encodeURIComponent(entry.name) + ".region"));
    if (!entry.web_style) return;
    const shown = ++detailsShown; // a later call's list replaces this one's
    fetchJSON(packPath(entry.name, "web-style.json"))
      .then((style) => {
        if (shown === detailsShown) listStyleFiles(style);
      })
      .catch((error) => {
        if (shown === detailsShown) fileText("web-style.json:", String(error.message || error));
      });
  }

  /// The files a web style names, by their URLs under the web base: each source's TileJSON and
  /// tile template (or its data), the glyph template and a range of each font stack, the sprites.
  function listStyleFiles(style) {
    for (const [id, source] of Object.entries(style.sources || {})) {
      const tiles = Array.isArray(source.tiles) ? source.tiles[0] : null;
      if (tiles) {
        fileLink("sources/" + id + "/tiles.json", tiles.replace(/\{z\}\/\{x\}\/\{y\}\.\w+$/, "tiles.json"));
        fileText("tiles of " + id + ":", tiles);
      } else if (typeof source.data === "string" || typeof source.url === "string") {
        fileLink("sources/" + id, source.data || source.url);
      }
    }
    if (typeof style.glyphs === "string") {
      fileText("glyphs:", style.glyphs);
      for (const stack of fontStacks(style)) {
        const range = style.glyphs.replace("{fontstack}", encodeURIComponent(stack)).replace("{range}", "0-255");
        fileLink("glyphs/" + stack + "/0-255.pbf", range);
      }
    }
    const sprites = typeof style.sprite === "string" ? [{ url: style.sprite }] : style.sprite || [];
    for (const sprite of sprites) {
      const name = sprite.url.split("/").pop();
      fileLink("sprites/" + name + ".json", sprite.url + ".json");
      fileLink("sprites/" + name + ".png", sprite.url + ".png");
    }
  }

  function fileLink(label, href) {
    const item = element("li");
    const anchor = element("a", null, label);
    anchor.href = href;
    item.append(anchor);
    document.getElementById("files").append(item);
  }

  function fileText(label, value) {
    const item = element("li", null, label + " ");
    item.append(element("code", null, value));
    document.getElementById("files").append(item);
  }

  /// The font stacks a style's symbol layers name literally.
  function fontStacks(style) {
    const stacks = new Set();
    for (const layer of style.layers || []) {
      const fonts = layer.layout && layer.layout["text-font"];
      if (Array.isArray(fonts) && fonts.length > 0 && fonts.every((f) => typeof f === "string")) stacks.add(fonts.join(","));
    }
    return [...stacks];
  }

  // MARK: polling

  async function poll() {
    try {
      const [list, status] = await Promise.all([fetchJSON("packs.json"), fetchJSON("status.json")]);
      polls += 1;
      page.polls = polls;
      showPacks(list.packs || []);
      showFigures(status);
      followSelection();
      if (!status.problem) notice("");
    } catch (error) {
      notice("Cannot read the mount: " + String(error.message || error) + " (trying again)");
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  try {
    makeMap();
  } catch (error) {
    page.errors.push("page: " + String((error && error.message) || error));
  }
  poll();
})();
