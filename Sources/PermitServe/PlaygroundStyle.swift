/// The page's style sheet, including the simulated iPhone (a screen drawn in CSS: the app's own
/// prompts as cards and rows, the system alert as iOS draws it).
enum PlaygroundStyle {
    static let css = #"""
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1d1d1f; background: #f5f5f7; }
        header { display: flex; align-items: center; justify-content: space-between; padding: 8px 16px; background: #fff; border-bottom: 1px solid #d2d2d7; }
        h1 { font-size: 18px; margin: 0; } #pack-name { color: #0066cc; }
        button { font: inherit; padding: 4px 10px; border: 1px solid #b0b0b8; border-radius: 6px; background: #fff; cursor: pointer; }
        button:disabled { opacity: .5; cursor: default; }
        #notice { padding: 8px 16px; background: #fff4ce; border-bottom: 1px solid #e0c96b; }
        main { display: flex; height: calc(100vh - 50px); }
        #edit { flex: 1 1 50%; display: flex; flex-direction: column; min-width: 0; border-right: 1px solid #d2d2d7; }
        #editor-wrap { flex: 1; display: flex; overflow: hidden; background: #fff; }
        #gutter { margin: 0; padding: 8px 6px; min-width: 3.5em; text-align: right; color: #8e8e93; background: #f0f0f2; overflow: hidden; user-select: none; }
        #gutter span.bad { color: #fff; background: #d70015; display: inline-block; width: 100%; }
        #editor { flex: 1; margin: 0; padding: 8px; border: 0; resize: none; outline: none; white-space: pre; overflow: auto; }
        #gutter, #editor { font: 13px/18px ui-monospace, Menlo, Consolas, monospace; }
        #load-status { padding: 6px 10px; font-family: ui-monospace, Menlo, monospace; white-space: pre-wrap; max-height: 30%; overflow: auto; }
        #load-status.ok { background: #e3f6e8; } #load-status.bad { background: #fde7e9; color: #9b0012; }
        #panels { flex: 1 1 50%; display: flex; flex-direction: column; min-width: 0; }
        #tabs { display: flex; gap: 2px; padding: 6px 8px 0; background: #fff; border-bottom: 1px solid #d2d2d7; }
        #tabs button { border-radius: 6px 6px 0 0; border-bottom: 0; }
        #tabs button.active { background: #0066cc; color: #fff; border-color: #0066cc; }
        .panel { flex: 1; overflow: auto; padding: 10px 14px; }
        #tests { list-style: none; padding: 0; margin: 0; }
        #tests li { margin: 4px 0; padding: 6px 8px; border-radius: 6px; background: #fff; border-left: 6px solid #999; cursor: pointer; }
        #tests li[data-verdict=pass] { border-color: #1f9d48; } #tests li[data-verdict=fail] { border-color: #d70015; background: #fff0f1; }
        #tests li[data-verdict=error] { border-color: #c77700; background: #fff7e6; }
        #tests li pre { margin: 4px 0 0; white-space: pre-wrap; font-size: 12px; }
        .verdict { font-weight: 600; margin-right: 6px; }
        pre { font: 12px/1.45 ui-monospace, Menlo, Consolas, monospace; }
        .row, .grid { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; margin-bottom: 8px; }
        .grid label { display: flex; flex-direction: column; font-size: 12px; color: #555; }
        .grid label.wide { flex-basis: 100%; } .grid textarea { font-family: ui-monospace, Menlo, monospace; }
        .split { display: flex; gap: 14px; align-items: flex-start; } .split > :first-child { flex: 1; min-width: 0; }
        .side { width: 300px; flex: none; }
        #tl-steps { margin: 0; padding-left: 28px; }
        #tl-steps li { padding: 4px 6px; border-radius: 4px; cursor: pointer; font-size: 12px; }
        #tl-steps li.selected { background: #dbeafe; } #tl-steps li.failed { color: #b00012; }
        #tl-detail dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 8px; font-size: 12px; }
        #tl-detail dt { color: #666; } #tl-detail dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
        .error { color: #b00012; white-space: pre-wrap; }
        table.copy { border-collapse: collapse; font-size: 12px; background: #fff; }
        table.copy th, table.copy td { border: 1px solid #d2d2d7; padding: 4px 6px; vertical-align: top; text-align: left; }
        td.missing, span.missing { background: #fde7e9; color: #9b0012; }
        #cmp-text { white-space: pre-wrap; background: #fff; padding: 8px; }
        #cmp-report { width: 100%; height: 900px; border: 1px solid #d2d2d7; background: #fff; }
        dialog { max-width: 80vw; } #save-diff { max-height: 50vh; overflow: auto; background: #f6f6f6; padding: 8px; }
        /* The simulated iPhone: a 280×560 screen in a rounded frame. */
        .phone { position: relative; width: 300px; height: 600px; border-radius: 44px; background: #111; padding: 12px; margin: 0 auto 10px; flex: none; }
        .phone .screen { position: relative; width: 100%; height: 100%; border-radius: 34px; overflow: hidden; background: #fff; }
        .phone .island { position: absolute; top: 10px; left: 50%; width: 90px; height: 26px; margin-left: -45px; border-radius: 13px; background: #000; z-index: 3; }
        .phone .statusbar { height: 46px; padding: 14px 24px 0; font: 600 13px -apple-system, Helvetica, sans-serif; display: flex; justify-content: space-between; }
        .phone .app { padding: 8px 16px; } .phone .app h3 { margin: 4px 0 10px; font-size: 22px; }
        .phone .line { height: 12px; border-radius: 6px; background: #e5e5ea; margin: 10px 0; }
        .phone .line.short { width: 60%; }
        .phone .dim { position: absolute; inset: 0; background: rgba(0,0,0,.35); display: flex; align-items: center; justify-content: center; z-index: 2; }
        .phone .sheet { position: absolute; left: 0; right: 0; bottom: 0; background: #fff; border-radius: 18px 18px 0 0; padding: 18px 18px 26px; text-align: center; }
        .phone .sheet h4 { margin: 4px 0 8px; font-size: 17px; } .phone .sheet p { margin: 0 0 14px; font-size: 13px; color: #3c3c43; }
        .phone .sheet .primary { display: block; width: 100%; padding: 11px; border: 0; border-radius: 12px; background: #007aff; color: #fff; font-weight: 600; margin-bottom: 8px; }
        .phone .sheet .secondary { display: block; width: 100%; padding: 8px; border: 0; background: none; color: #007aff; }
        .phone .alert { width: 240px; border-radius: 14px; background: rgba(242,242,247,.97); text-align: center; overflow: hidden; }
        .phone .alert h4 { margin: 16px 14px 4px; font-size: 15px; } .phone .alert p { margin: 0 14px 14px; font-size: 12px; }
        .phone .rows { margin: 6px 0; text-align: left; } .phone .rows .row { display: flex; justify-content: space-between; padding: 3px 0; border-bottom: 1px solid #d8d8dc; }
        .phone .rows .value { color: #6d6d72; margin-left: 8px; }
        .phone .alert .buttons { display: flex; border-top: 1px solid #c6c6c8; }
        .phone .alert .buttons span { flex: 1; padding: 10px 4px; color: #007aff; font-size: 15px; }
        .phone .alert .buttons span + span { border-left: 1px solid #c6c6c8; font-weight: 600; }
        .phone .inline { margin: 12px 0; padding: 10px 12px; border-radius: 12px; background: #eef4ff; position: relative; font-size: 12px; }
        .phone .inline b { display: block; font-size: 13px; } .phone .inline .close { position: absolute; right: 10px; top: 6px; color: #8e8e93; }
        .phone .inline .chevron { position: absolute; right: 12px; bottom: 8px; color: #c7c7cc; font-size: 18px; }
        .phone .inline .act { display: inline-block; margin-top: 6px; padding: 4px 10px; border-radius: 10px; background: #007aff; color: #fff; }
        .phone a.link { color: #007aff; text-decoration: underline; }
        .phone .note { position: absolute; left: 12px; right: 12px; bottom: 30px; padding: 8px; border-radius: 10px; background: #f2f2f7; font-size: 11px; color: #555; text-align: center; }
        """#
}
