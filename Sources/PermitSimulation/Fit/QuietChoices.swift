import Foundation

/// What quiet (provisional) users choose, from logs that follow each of them for a different
/// time: the Kaplan–Meier estimate with two competing outcomes (turn off, deliver immediately),
/// and "keep quiet" what is left when the last choice the logs show has been made.
///
/// Why: keeping quiet delivery is not an event a log shows; only a choice to turn notifications
/// off or have them delivered immediately (Keep, then Deliver Immediately) is. A user followed
/// for a while without a choice is still undecided up to then, and says so: dropping them (a log that ends, or a policy that
/// later asks quiet users for full alerts and so takes them out of quiet delivery) drops the
/// users who keep quiet delivery longest, and the share that keeps it comes out far too low.
/// Counting each user at risk until their log ends or they leave quiet delivery another way
/// (censored) uses what every user showed. Censoring by the app's own later ask does not depend
/// on what the user would have chosen, which is what the estimate needs.
///
/// The shares: S(t) the chance of no choice by day t (the product over event days of
/// 1 − choices/at risk), each outcome's share the sum of S(t−) × its choices/at risk (Aalen and
/// Johansen's cumulative incidence), keep quiet S at the last choice; the three add up to 1.
/// Greenwood's variance of S gives the effective number of users, n = S(1 − S)/Var(S), and
/// each share is counted as a share of that many, so its interval is Wilson's for them.
enum QuietChoices {
    /// How one quiet user's log ends: after `days` days of quiet delivery, with a choice or not.
    struct Follow: Sendable, Hashable {
        /// Days from becoming quiet to the choice showing, or to the last day the user was seen quiet.
        let days: Int
        /// The choice, or `nil` when none showed (censored).
        let outcome: Outcome?
    }

    /// A choice a log can show.
    enum Outcome: Sendable, Hashable { case turnOff, immediate }

    /// The estimate: the three shares and the effective number of users behind them.
    struct Estimate: Sendable, Hashable {
        let keep: Double
        let turnOff: Double
        let immediate: Double
        let effectiveUsers: Double

        /// `share` of the effective users, as whole counts for Wilson's interval.
        func counts(_ share: Double) -> Counts {
            let trials = max(1, Int(effectiveUsers.rounded()))
            return Counts(successes: min(trials, Int((share * Double(trials)).rounded())), trials: trials)
        }
    }

    /// The estimate from `follows`; `nil` when no choice shows (keeping cannot be told from
    /// not having chosen yet).
    static func estimate(_ follows: [Follow]) -> Estimate? {
        let eventDays = Set(follows.compactMap { $0.outcome == nil ? nil : $0.days }).sorted()
        guard !eventDays.isEmpty else { return nil }
        var survival = 1.0, off = 0.0, immediate = 0.0, greenwood = 0.0
        for day in eventDays {
            let atRisk = Double(follows.filter { $0.days >= day }.count)
            let offs = Double(follows.filter { $0.days == day && $0.outcome == .turnOff }.count)
            let immediates = Double(follows.filter { $0.days == day && $0.outcome == .immediate }.count)
            let chose = offs + immediates
            off += survival * offs / atRisk
            immediate += survival * immediates / atRisk
            survival *= 1 - chose / atRisk
            if atRisk > chose { greenwood += chose / (atRisk * (atRisk - chose)) }
        }
        let variance = survival * survival * greenwood
        let all = Double(follows.count)
        let effective = variance > 0 ? min(all, survival * (1 - survival) / variance) : all
        return Estimate(keep: survival, turnOff: off, immediate: immediate, effectiveUsers: effective)
    }
}
