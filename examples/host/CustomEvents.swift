// An event in the app's own words, as docs/reference/policy.md ("App events of the app's own")
// shows it: the region between the `snippet` markers (without its indentation) is that page's
// block, checked by DocumentationTests.
import PermitCore

/// Tells the policy that the learner completed a lesson; `AppEvent.custom` throws
/// `CustomEventError` for a name or properties past the limits.
func lessonCompleted(on engine: PermissionEngine) async throws -> Outcome {
    // snippet: begin
    let outcome = await engine.handle(try .custom("lesson_completed", properties: ["count": 2, "course": "verbs"]))
    // snippet: end
    return outcome
}
