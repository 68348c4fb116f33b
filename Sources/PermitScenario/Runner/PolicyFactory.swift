import PermitCore

/// Makes the policy of a new run of the app's process: for a Lua policy a fresh VM from the
/// same source, as the app's cold start builds one.
public typealias PolicyFactory = @Sendable () throws(PolicyError) -> any Policy
