import PermitCore
import PermitSimulator

/// The policy each process of a scenario's app runs: the one the scenario was checked against
/// in the first process, then `relaunch`'s (a fresh VM per cold start) or that one again; with
/// `policy_update` steps, the updatable policy over it, rebuilt from what earlier processes
/// installed.
struct ScenarioPolicies: PolicyPerProcess {
    let first: any Policy
    let relaunch: PolicyFactory?
    let updates: PolicyUpdates?
    private let firstServed = Locked(false)

    init(first: any Policy, relaunch: PolicyFactory?, updates: PolicyUpdates?) {
        self.first = first
        self.relaunch = relaunch
        self.updates = updates
    }

    func policy(processSeed: UInt64) throws(PolicyError) -> any Policy {
        let isFirst = firstServed.withLock { served in
            defer { served = true }
            return !served
        }
        let policy = isFirst ? first : try relaunch?() ?? first
        return updates?.start(builtIn: policy) ?? policy
    }

    func processEnded() { updates?.end() }

    func appReinstalled() { updates?.reinstall() }
}
