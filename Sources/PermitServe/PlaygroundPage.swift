/// The playground's page: one HTML document with its style inline and its script at
/// `scriptPath`, both served from the binary (Swift string literals, so a static `permit`
/// needs no resource files beside it). No library, no font or script from elsewhere: it works
/// with no network but loopback. The script is a file of its own so that the page's
/// Content-Security-Policy can forbid inline script.
enum PlaygroundPage {
    /// Where the page's script is served.
    static let scriptPath = "/playground.js"

    /// The whole page.
    static let html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Permit playground</title>
        <style>
        \(PlaygroundStyle.css)
        </style>
        </head>
        <body>
        \(body)
        <script src="\(scriptPath)"></script>
        </body>
        </html>
        """

    /// The page's markup: the editor on the left, the panels on the right.
    static let body = """
        <header>
          <h1>Permit playground <span id="pack-name"></span></h1>
          <div id="file-bar">
            <select id="file" title="File"></select>
            <span id="dirty"></span>
            <button id="save">Save…</button>
            <button id="reload">Reload from disk</button>
          </div>
        </header>
        <div id="notice" hidden></div>
        <main>
          <section id="edit">
            <div id="editor-wrap"><pre id="gutter" aria-hidden="true"></pre><textarea id="editor" spellcheck="false" wrap="off"></textarea></div>
            <div id="load-status" class="ok">loading…</div>
          </section>
          <section id="panels">
            <nav id="tabs">
              <button data-tab="tests" class="active">Tests</button>
              <button data-tab="timeline">Timeline</button>
              <button data-tab="try">Try it</button>
              <button data-tab="copy">Copy</button>
              <button data-tab="compare">Compare</button>
              <button data-tab="share">Share</button>
            </nav>
            <div class="panel" id="panel-tests">
              <p id="tests-summary">running…</p>
              <ul id="tests"></ul>
            </div>
            <div class="panel" id="panel-timeline" hidden>
              <div class="row">
                <label>Scenario <select id="tl-scenario"></select></label>
                <label>Locale <input id="tl-locale" size="8" placeholder="scenario's"></label>
              </div>
              <p id="tl-problem" class="error" hidden></p>
              <div class="split">
                <ol id="tl-steps"></ol>
                <div class="side"><div id="tl-phone" class="phone"></div><div id="tl-detail"></div></div>
              </div>
            </div>
            <div class="panel" id="panel-try" hidden>
              <form id="try-form" class="grid">
                <label>Status <select id="try-status">
                  <option>not_determined</option><option>denied</option><option>authorized</option>
                  <option>provisional</option><option>ephemeral</option></select></label>
                <label>iOS <input id="try-os" value="17.0" size="6"></label>
                <label>Event <select id="try-event"></select></label>
                <label>Feature <input id="try-feature" value="notifications_probe"></label>
                <label>Answer <select id="try-answer"><option></option><option>accept</option><option>decline</option>
                  <option>dismiss</option><option>open</option><option>cancel</option></select></label>
                <label>Granted <select id="try-granted"><option></option><option>true</option><option>false</option></select></label>
                <label>Locale <input id="try-locale" value="en" size="8"></label>
                <label class="wide">Properties (name=value per line) <textarea id="try-properties" rows="2"></textarea></label>
                <label class="wide">History (a ledger as JSON; empty: a fresh install) <textarea id="try-history" rows="3"></textarea></label>
                <button type="submit" id="try-run">Decide</button>
              </form>
              <div class="split"><pre id="try-output"></pre><div id="try-phone" class="phone"></div></div>
            </div>
            <div class="panel" id="panel-copy" hidden>
              <p>Every text the policy can show, found by <code>permit check</code>'s probes; <span class="missing">missing</span> marks a declared locale the text does not reach (its users see English).</p>
              <div id="copy-table"></div>
            </div>
            <div class="panel" id="panel-compare" hidden>
              <form id="compare-form" class="grid">
                <label>Against <select id="cmp-against"></select></label>
                <label>Model <select id="cmp-model"></select></label>
                <label>Users <input id="cmp-users" type="number" value="2000" min="1" max="20000"></label>
                <label>Days <input id="cmp-days" type="number" value="30" min="1" max="90"></label>
                <label>Drawn models <input id="cmp-sensitivity" type="number" value="0" min="0" max="10"></label>
                <button type="submit" id="cmp-run">Compare</button>
                <button type="button" id="cmp-cancel" disabled>Cancel</button>
              </form>
              <progress id="cmp-progress" max="1" value="0"></progress> <span id="cmp-state"></span>
              <pre id="cmp-text"></pre>
              <iframe id="cmp-report" title="Comparison report" sandbox hidden></iframe>
            </div>
            <div class="panel" id="panel-share" hidden>
              <p>Download the edited pack as an unsigned bundle, as <code>permit bundle</code> makes it (the pack's tests must pass; sign it with <code>permit sign</code> before publishing).</p>
              <button id="download">Download bundle</button> <span id="download-state"></span>
              <p>Open a bundle: its policy replaces the editor's text, unsaved, until you save.</p>
              <input type="file" id="upload" accept=".permitbundle,application/octet-stream"> <span id="upload-state"></span>
            </div>
          </section>
        </main>
        <dialog id="save-dialog">
          <h2>Save <span id="save-path"></span>?</h2>
          <p>The difference from the file on disk:</p>
          <pre id="save-diff"></pre>
          <p id="save-error" class="error"></p>
          <button id="save-confirm">Save</button> <button id="save-reload" hidden>Reload from disk</button> <button id="save-cancel">Close</button>
        </dialog>
        """
}
