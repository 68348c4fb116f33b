-- web-links: a link to a web page on a prompt, a row and a page (link + url).
--   * the first launch shows a welcome pre-prompt with a link to why the app asks, in English
--     and German; the link leaves the prompt up, and its answer carries the prompt's id;
--   * the alerts screen shows an inline settings row with a help link while notifications are
--     off;
--   * the app event about_alerts shows an information page with a link to the FAQ;
--   * three screens return a link the app must refuse: an http address, a link without its
--     url, and a link on a label.
local why = { en = "https://www.example.com/en/why-notifications", de = "https://www.example.com/de/warum-mitteilungen" }

return {
  name = "web-links",
  locales = { "en", "de" },
  events = { "about_alerts" },

  decide = function(ctx)
    local event = ctx.event.name

    if event == "app_launch" and ctx.status == "not_determined" then
      return { action = "soft_prompt", id = "welcome", title = { en = "Stay in the loop", de = "Bleib auf dem Laufenden" },
               message = { en = "We tell you when your order ships.", de = "Wir sagen dir, wann deine Bestellung versandt wird." },
               accept = { en = "Continue", de = "Weiter" }, decline = { en = "Not now", de = "Nicht jetzt" },
               link = { en = "Why we ask", de = "Warum wir fragen" }, url = why }
    end

    if event == "soft_prompt_answered" and ctx.event.answer == "accept" then
      return { action = "request_permission", reason = "accepted " .. tostring(ctx.event.prompt_id) }
    end

    if event == "feature_opened" and ctx.event.feature == "alerts" and ctx.status == "denied" then
      return { action = "settings_prompt", presentation = "inline", id = "alerts_off", deep_link = "notification_settings",
               title = { en = "Notifications are off", de = "Mitteilungen sind aus" },
               message = { en = "Turn them on to hear when your order ships.", de = "Schalte sie ein, um vom Versand zu hören." },
               open = { en = "Settings", de = "Einstellungen" },
               link = { en = "Help", de = "Hilfe" },
               url = { en = "https://www.example.com/en/help", de = "https://www.example.com/de/hilfe" } }
    end

    if event == "about_alerts" then
      return { action = "inform", id = "about", title = { en = "About alerts", de = "Über Mitteilungen" },
               message = { en = "Alerts arrive when your order ships.", de = "Mitteilungen kommen beim Versand." },
               button = { en = "Got it", de = "Verstanden" },
               link = { en = "Read the FAQ", de = "Zu den FAQ" },
               url = { en = "https://www.example.com/en/faq#alerts", de = "https://www.example.com/de/faq#mitteilungen" } }
    end

    if event == "feature_opened" and ctx.event.feature == "http_link" then
      return { action = "inform", title = "T", message = "M", button = "OK", link = "More", url = "http://www.example.com/faq" }
    end
    if event == "feature_opened" and ctx.event.feature == "link_without_url" then
      return { action = "soft_prompt", title = "T", message = "M", accept = "A", decline = "D", link = "More" }
    end
    if event == "feature_opened" and ctx.event.feature == "label_link" then
      return { action = "inform", presentation = "inline", title = "Notifications are off",
               link = "More", url = "https://www.example.com/faq" }
    end

    if event == "soft_prompt_answered" or event == "settings_prompt_answered" or event == "inform_answered" then
      return { action = "none", reason = tostring(ctx.event.prompt_id) .. " " .. ctx.event.answer }
    end
    return nil
  end,
}
