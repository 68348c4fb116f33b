/// The page's script: the editor, the panels, and the calls to the API (each with the launch's
/// token in the `X-Permit-Token` header, read from the page's own URL). Plain DOM, no library.
enum PlaygroundScript {
    static let js = #"""
        "use strict";
        const token = new URLSearchParams(location.search).get("token") || "";
        const $ = (id) => document.getElementById(id);
        const state = { files: {}, order: [], current: "policy.lua", locales: [], events: [], scenarios: [], job: 0, selectedStep: 0 };
        const builtInEvents = ["app_launch", "app_foreground", "app_background", "feature_opened", "soft_prompt_answered",
          "system_prompt_answered", "settings_prompt_answered", "inform_answered", "notification_settings_opened",
          "background_refresh"];

        function el(tag, attrs, ...children) {
          const node = document.createElement(tag);
          for (const [k, v] of Object.entries(attrs || {})) {
            if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
          }
          for (const child of children.flat(Infinity)) if (child != null) node.append(child.nodeType ? child : String(child));
          return node;
        }
        function notice(text) { const n = $("notice"); n.textContent = text; n.hidden = !text; }

        async function api(path, body, raw) {
          const init = { method: body === undefined ? "GET" : "POST", headers: { "X-Permit-Token": token } };
          if (body !== undefined) {
            if (raw) { init.body = body; init.headers["Content-Type"] = "application/octet-stream"; }
            else { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
          }
          const response = await fetch(path, init);
          if (response.headers.get("Content-Type") === "application/octet-stream") return { response, blob: await response.blob() };
          const data = await response.json();
          if (!response.ok) { const e = new Error(data.error || response.statusText); e.status = response.status; e.data = data; throw e; }
          return data;
        }
        function edits() { const out = {}; for (const p of state.order) out[p] = state.files[p].text; return out; }
        function debounce(fn, ms) { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); }; }

        // The editor: a textarea with a gutter of line numbers that scrolls with it.
        function drawGutter(badLines) {
          const count = $("editor").value.split("\n").length;
          const gutter = $("gutter"); gutter.textContent = "";
          for (let i = 1; i <= count; i++) {
            gutter.append(el("span", badLines.has(i) ? { class: "bad", "data-line": i } : { "data-line": i }, String(i)), "\n");
          }
          gutter.scrollTop = $("editor").scrollTop;
        }
        let badLines = new Set();
        function showFile(path) {
          state.current = path; $("file").value = path; $("editor").value = state.files[path].text;
          drawGutter(badLines); markDirty();
        }
        function markDirty() {
          const dirty = state.order.filter((p) => state.files[p].text !== state.files[p].disk);
          $("dirty").textContent = dirty.length ? "unsaved: " + dirty.join(", ") : "saved";
        }

        async function loadPack(keepEdits) {
          const info = await api("/api/pack");
          $("pack-name").textContent = info.name;
          const old = state.files; state.files = {}; state.order = [];
          for (const f of info.files) {
            const kept = keepEdits && old[f.path] && old[f.path].text !== old[f.path].disk ? old[f.path].text : f.text;
            state.files[f.path] = { text: kept, disk: f.text, version: f.version }; state.order.push(f.path);
          }
          $("file").textContent = ""; for (const p of state.order) $("file").append(el("option", { value: p }, p));
          $("cmp-model").textContent = ""; for (const m of info.models) $("cmp-model").append(el("option", {}, m));
          $("cmp-against").textContent = ""; $("cmp-against").append(el("option", { value: "saved" }, "the saved policy.lua"));
          for (const p of info.packs) $("cmp-against").append(el("option", { value: p }, "pack " + p));
          showFile(state.files[state.current] ? state.current : "policy.lua");
        }

        // Tests: every scenario, re-run on each edit (debounced) against the unsaved text.
        let testsRun = 0;
        async function runTests() {
          const run = ++testsRun;
          let report;
          try { report = await api("/api/tests", { files: edits() }); } catch (e) { notice(e.message); return; }
          if (run !== testsRun) return;
          const load = report.load;
          badLines = new Set(load.problems.filter((p) => p.line).map((p) => p.line));
          const status = $("load-status");
          status.className = load.problems.length ? "bad" : "ok";
          status.textContent = load.problems.length
            ? load.problems.map((p) => (p.line ? "line " + p.line + ": " : "") + p.message).join("\n")
            : "ok: " + load.name + " loads" + (load.locales.length ? " (locales " + load.locales.join(", ") + ")" : "");
          state.locales = load.locales; state.events = load.events;
          drawGutter(state.current === "policy.lua" ? badLines : new Set());
          $("tests-summary").textContent = report.summary + " (" + Math.round(report.milliseconds) + " ms)";
          const list = $("tests"); list.textContent = "";
          state.scenarios = report.scenarios;
          for (const s of report.scenarios) {
            list.append(el("li", { "data-verdict": s.verdict, "data-id": s.id, onclick: () => openTimeline(s.id) },
              el("span", { class: "verdict" }, s.verdict.toUpperCase()), s.name,
              s.verdict === "pass" ? null : el("pre", {}, s.lines.slice(1).join("\n") || s.lines.join("\n"))));
          }
          fillScenarios(); fillEvents();
          if (!$("panel-timeline").hidden && $("tl-scenario").value) loadTimeline();
        }
        const rerun = debounce(runTests, 250);

        function fillScenarios() {
          const select = $("tl-scenario"); const chosen = select.value; select.textContent = "";
          for (const s of state.scenarios) if (s.verdict !== "error") select.append(el("option", { value: s.id }, s.name + " — " + s.file));
          if (chosen) select.value = chosen;
        }
        function fillEvents() {
          const select = $("try-event"); const chosen = select.value || "feature_opened"; select.textContent = "";
          for (const e of builtInEvents.concat(state.events)) select.append(el("option", {}, e));
          select.value = chosen;
        }

        // The simulated iPhone: what the user sees after a step or a decision; a row beneath a
        // modal is drawn on its screen, under the modal.
        function drawPhone(target, screen, beneath) {
          target.textContent = "";
          const app = el("div", { class: "app" }, el("h3", {}, "Today"), el("div", { class: "line" }), el("div", { class: "line short" }),
            el("div", { class: "line" }), el("div", { class: "line short" }));
          const view = el("div", { class: "screen" }, el("div", { class: "island" }),
            el("div", { class: "statusbar" }, el("span", {}, "9:41"), el("span", {}, "●●● 100%")), app);
          target.append(view);
          if (beneath) drawRow(app, beneath);
          const kind = screen ? screen.kind : "none";
          target.dataset.screen = kind;
          const buttons = (screen && screen.buttons) || [];
          const link = screen ? linkOf(screen) : null;
          if (kind === "soft_prompt" || kind === "settings_prompt" || kind === "inform_page") {
            const sheet = el("div", { class: "sheet " + kind }, el("h4", {}, screen.title || ""), el("p", {}, screen.message || ""),
              rowsOf(screen), link ? el("p", {}, link) : null, buttons[0] ? el("button", { class: "primary" }, buttons[0]) : null, buttons[1] ? el("button", { class: "secondary" }, buttons[1]) : null);
            view.append(el("div", { class: "dim" }, sheet));
          } else if (kind === "system_dialog") {
            view.append(el("div", { class: "dim" }, el("div", { class: "alert system-dialog" }, el("h4", {}, screen.title),
              el("p", {}, screen.message), el("div", { class: "buttons" }, buttons.map((b) => el("span", {}, b))))));
          } else if (kind.startsWith("inline_") || kind === "label") {
            drawRow(app, screen);
          }
          if (screen && screen.note) view.append(el("div", { class: "note" }, screen.note));
        }

        // A web link (link, url): drawn as a link, opening its https page in a new tab.
        function linkOf(shown) {
          return shown.link
            ? el("a", { class: "link", href: shown.url || "", title: shown.url || "", target: "_blank", rel: "noopener noreferrer" }, shown.link)
            : null;
        }

        // A status list (rows): each setting's name, and its value on the right.
        function rowsOf(shown) {
          const rows = shown.rows || [];
          return rows.length
            ? el("div", { class: "rows" }, rows.map((r) => el("div", { class: "row" }, el("span", {}, r.name), el("span", { class: "value" }, r.value))))
            : null;
        }

        // An inline row (or label) in the app's screen, under its heading.
        function drawRow(app, row) {
          const buttons = row.buttons || [];
          const link = linkOf(row);
          app.insertBefore(el("div", { class: "inline " + row.kind }, el("span", { class: "close" }, "✕"), el("b", {}, row.title || ""),
            row.message || "", rowsOf(row), link ? [el("br"), link] : null, el("br"), buttons.map((b) => el("span", { class: "act" }, b)),
            // A settings row without an open text is its own button: the whole row opens Settings.
            row.kind === "inline_settings_prompt" && !buttons.length ? el("span", { class: "chevron" }, "›") : null), app.children[1]);
        }

        // Timeline: a scenario step by step, in the chosen locale.
        function openTimeline(id) { switchTab("timeline"); $("tl-scenario").value = id; state.selectedStep = 0; loadTimeline(); }
        let timelineRun = 0;
        async function loadTimeline() {
          const run = ++timelineRun;
          const id = $("tl-scenario").value; if (!id) return;
          let tl;
          try { tl = await api("/api/timeline", { files: edits(), scenario: id, locale: $("tl-locale").value.trim() || null }); }
          catch (e) { notice(e.message); return; }
          if (run !== timelineRun) return;
          $("tl-problem").hidden = !tl.problem; $("tl-problem").textContent = tl.problem || "";
          const list = $("tl-steps"); list.textContent = "";
          tl.steps.forEach((step, index) => {
            list.append(el("li", { class: step.failures.length ? "failed" : "", "data-step": step.number, onclick: () => selectStep(tl, index) },
              step.clock + "  " + step.action + (step.decision.action ? "  → " + step.decision.action : "")));
          });
          if (tl.steps.length) selectStep(tl, Math.min(state.selectedStep, tl.steps.length - 1));
        }
        function selectStep(tl, index) {
          state.selectedStep = index;
          const step = tl.steps[index];
          [...$("tl-steps").children].forEach((li, i) => li.classList.toggle("selected", i === index));
          drawPhone($("tl-phone"), step.screen, step.beneath);
          const rows = [["step", step.number + " (line " + step.line + ")"], ["event", step.action], ["status", (step.statusBefore || "") + " → " + step.status],
            ["decision", Object.entries(step.decision).map(([k, v]) => k + " = " + v).join("\n")], ["reason", step.reason || ""],
            ["warnings", step.warnings.join("\n")], ["errors", step.errors.join("\n")], ["trace", step.trace], ["failures", step.failures.join("\n")],
            ["locale", tl.locale]];
          $("tl-detail").textContent = "";
          $("tl-detail").append(el("dl", {}, rows.filter((r) => r[1]).map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
        }

        // Try it: one decision, as permit decide gives it.
        async function tryIt(event) {
          event.preventDefault();
          const attempt = { status: $("try-status").value, os: $("try-os").value, event: $("try-event").value, locale: $("try-locale").value,
            properties: $("try-properties").value, history: $("try-history").value };
          if (attempt.event === "feature_opened") attempt.feature = $("try-feature").value;
          if (/answered$/.test(attempt.event) && attempt.event !== "system_prompt_answered") attempt.answer = $("try-answer").value || null;
          if (attempt.event === "system_prompt_answered") attempt.granted = $("try-granted").value === "true";
          try {
            const d = await api("/api/decide", { files: edits(), attempt });
            $("try-output").textContent = [d.text, d.warnings.map((w) => "warning: " + w).join("\n"), d.errors.join("\n")].filter(Boolean).join("\n");
            drawPhone($("try-phone"), d.screen, d.beneath);
          } catch (e) { $("try-output").textContent = e.message; }
        }

        // Copy: every text by locale.
        async function loadCopy() {
          const target = $("copy-table"); target.textContent = "probing…";
          let copy;
          try { copy = await api("/api/copy", { files: edits() }); } catch (e) { target.textContent = e.message; return; }
          target.textContent = "";
          const head = el("tr", {}, el("th", {}, "where"), el("th", {}, "field"), copy.locales.map((l) => el("th", {}, l)));
          const rows = copy.rows.map((r) => el("tr", {}, el("td", {}, r.place), el("td", {}, r.field), copy.locales.map((l) => {
            const text = r.texts[l] !== undefined ? r.texts[l] : (l === "en" && r.texts["*"] !== undefined ? r.texts["*"] : null);
            return r.missing.includes(l) ? el("td", { class: "missing" }, "missing") : el("td", {}, text === null ? "—" : text);
          })));
          target.append(el("table", { class: "copy" }, head, rows));
          if (copy.problems.length) target.append(el("pre", { class: "error" }, copy.problems.join("\n")));
        }

        // Compare: a simulation of the edited policy against another, with progress and cancel.
        async function compare(event) {
          event.preventDefault();
          const request = { against: $("cmp-against").value, model: $("cmp-model").value, users: +$("cmp-users").value,
            days: +$("cmp-days").value, sensitivity: +$("cmp-sensitivity").value };
          $("cmp-text").textContent = ""; $("cmp-report").hidden = true;
          try {
            const job = await api("/api/compare", { files: edits(), compare: request });
            state.job = job.id; $("cmp-cancel").disabled = false; pollCompare();
          } catch (e) { $("cmp-state").textContent = e.message; }
        }
        async function pollCompare() {
          let job;
          try { job = await api("/api/compare/state", { id: state.job }); } catch (e) { $("cmp-state").textContent = e.message; return; }
          $("cmp-progress").max = job.total || 1; $("cmp-progress").value = job.done;
          $("cmp-state").textContent = job.state + " " + job.done + "/" + job.total + " users";
          if (job.state === "running") { setTimeout(pollCompare, 400); return; }
          $("cmp-cancel").disabled = true;
          if (job.state === "done") {
            $("cmp-text").textContent = job.text;
            $("cmp-report").srcdoc = job.html; $("cmp-report").hidden = false;
          } else if (job.message) $("cmp-state").textContent = job.state + ": " + job.message;
        }

        // Share: download the edited pack as an unsigned bundle; open one.
        async function download() {
          $("download-state").textContent = "bundling…";
          try {
            const { response, blob } = await api("/api/bundle", { files: edits() });
            const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
            const link = el("a", { href: URL.createObjectURL(blob), download: name ? name[1] : "pack.permitbundle" });
            document.body.append(link); link.click(); link.remove();
            $("download-state").textContent = "downloaded " + (name ? name[1] : "");
          } catch (e) { $("download-state").textContent = e.message; }
        }
        async function upload() {
          const file = $("upload").files[0]; if (!file) return;
          try {
            const opened = await api("/api/open", await file.arrayBuffer(), true);
            for (const [path, text] of Object.entries(opened.files)) if (state.files[path]) state.files[path].text = text;
            showFile(state.current); rerun();
            $("upload-state").textContent = "opened " + file.name + ": unsaved until you save";
          } catch (e) { $("upload-state").textContent = e.message; }
        }

        // Save: show the difference first; refuse to overwrite a file changed on disk.
        async function askSave() {
          const path = state.current, f = state.files[path];
          $("save-path").textContent = path; $("save-error").textContent = ""; $("save-reload").hidden = true; $("save-confirm").hidden = false;
          const { diff } = await api("/api/diff", { path, text: f.text });
          $("save-diff").textContent = diff || "(no difference)";
          $("save-dialog").showModal();
        }
        async function confirmSave() {
          const path = state.current, f = state.files[path];
          try {
            const saved = await api("/api/save", { path, text: f.text, base: f.version });
            f.version = saved.version; f.disk = f.text; markDirty(); $("save-dialog").close(); notice("");
          } catch (e) {
            $("save-error").textContent = e.message;
            if (e.status === 409) { $("save-reload").hidden = false; $("save-confirm").hidden = true; }
          }
        }
        async function reload() {
          const dirty = state.order.some((p) => state.files[p].text !== state.files[p].disk);
          if (dirty && !confirm("Reload from disk and drop your unsaved edits?")) return;
          for (const p of state.order) state.files[p].disk = null;
          await loadPack(false); rerun(); notice("");
        }

        function switchTab(name) {
          for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
          for (const p of document.querySelectorAll(".panel")) p.hidden = p.id !== "panel-" + name;
          if (name === "copy") loadCopy();
          if (name === "timeline") { if (!$("tl-scenario").value) fillScenarios(); loadTimeline(); }
        }

        async function start() {
          if (!token) { notice("This page needs the token: open the URL that permit serve printed (it ends in ?token=…)."); return; }
          for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => switchTab(b.dataset.tab));
          $("editor").addEventListener("input", () => { state.files[state.current].text = $("editor").value; drawGutter(badLines); markDirty(); rerun(); });
          $("editor").addEventListener("scroll", () => { $("gutter").scrollTop = $("editor").scrollTop; });
          $("file").addEventListener("change", () => showFile($("file").value));
          $("tl-scenario").addEventListener("change", () => { state.selectedStep = 0; loadTimeline(); });
          $("tl-locale").addEventListener("change", loadTimeline);
          $("try-form").addEventListener("submit", tryIt);
          $("compare-form").addEventListener("submit", compare);
          $("cmp-cancel").addEventListener("click", async () => { await api("/api/compare/cancel", { id: state.job }); });
          $("download").addEventListener("click", download);
          $("upload").addEventListener("change", upload);
          $("save").addEventListener("click", askSave);
          $("save-confirm").addEventListener("click", confirmSave);
          $("save-cancel").addEventListener("click", () => $("save-dialog").close());
          $("save-reload").addEventListener("click", async () => { $("save-dialog").close(); await reload(); });
          $("reload").addEventListener("click", reload);
          try { await loadPack(false); } catch (e) { notice(e.message); return; }
          fillEvents();
          await runTests();
        }
        start();
        """#
}
