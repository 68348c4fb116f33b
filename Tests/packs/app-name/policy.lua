-- app-name: texts that name the app, filled with the name the host gives.
--   * the first launch shows a pre-prompt whose title and message name the app through the
--     copy's {app} placeholder, in English and German, with ctx.app.name (or "Dose Diary" when
--     the host gives no name);
--   * its decline says, in its reason, which name ctx.app.name held;
--   * the app event about names {{braces}} literally and fills {app} without a fallback, so a
--     host that gives no name gets an error naming the key, the language and the placeholder,
--     never a raw {app} on screen.
return {
  name = "app-name",
  locales = { "en", "de" },
  events = { "about" },

  decide = function(ctx)
    local event = ctx.event.name
    local named = { app = ctx.app.name or "Dose Diary" }

    if event == "app_launch" and ctx.status == "not_determined" then
      return { action = "soft_prompt", id = "welcome", title = permit.copy("welcome.title", named),
               message = permit.copy("welcome.message", named), accept = permit.copy("welcome.accept"),
               decline = permit.copy("welcome.decline") }
    end

    if event == "soft_prompt_answered" and ctx.event.answer == "decline" then
      return { action = "none", reason = "declined in " .. tostring(ctx.app.name) }
    end

    if event == "about" then
      return { action = "inform", title = permit.copy("about.title", { app = ctx.app.name }),
               message = permit.copy("welcome.message", named), button = permit.copy("welcome.accept") }
    end
  end,
}
