import Foundation

/// The "yes" chances of a first prompt and what each earlier prompt takes off them, fitted
/// together from answers counted by how many prompts the person had answered before.
///
/// Why: the model's user says yes to a prompt with `chance − k × deny_increase_per_prompt`
/// (never below 0), `k` the prompts they have seen. An app's answers are pooled over every `k`,
/// so their plain share is lower than the model's chance; written into a model that applies the
/// annoyance again, it would count it twice. Fitting the model's own form — a chance per figure
/// and one slope for all of them — gives figures a simulation reproduces.
///
/// The estimate is the maximum of the binomial likelihood over cells (figure, k): each cell's
/// chance is `max(0, chance − k × slope)`, so a cell past zero can only hold noes. That
/// likelihood is concave in the chances and the slope (the chance is linear in them, and
/// `log p`, `log(1 − p)` are concave and stay so clipped at 0), so Newton's method with a step
/// that never lowers it finds the one maximum. Intervals are Wald's, from the observed
/// information at the maximum (the chances' intervals include the slope's uncertainty).
///
/// The slope needs answers of one figure at different `k`; when no figure has them it is not
/// identified, and the chances are fitted with the base model's slope held fixed.
struct AnnoyanceFit: Sendable {
    /// A fitted figure: estimate, 95% interval, observations.
    struct Estimate: Sendable, Hashable {
        let value: Double
        let interval: Interval
        let n: Int
    }

    /// Each figure's chance at a first prompt (`k` = 0), by name.
    let chances: [String: Estimate]
    /// The slope, when the answers identify it; `nil` when the base's was held.
    let slope: Estimate?
    /// The slope the chances were fitted with (the estimate, or the base's).
    let slopeUsed: Double
    /// The largest number of earlier prompts any answer came after.
    let mostEarlierPrompts: Int

    private struct Cell {
        let figure: Int
        let k: Double
        let successes: Double
        let trials: Double
    }

    /// Fits `answers` (figure → earlier prompts → yes out of answers); `baseSlope` is held when
    /// the answers do not identify a slope, or always with `holdSlope` (a group's chances read
    /// off the line of everybody's slope). Figures with no answer are left out.
    init(answers: [String: [Int: Counts]], baseSlope: Double, holdSlope: Bool = false) {
        let names = answers.keys.sorted().filter { answers[$0]!.values.contains { $0.trials > 0 } }
        var cells: [Cell] = []
        for (index, name) in names.enumerated() {
            for (k, counts) in answers[name]!.sorted(by: { $0.key < $1.key }) where counts.trials > 0 {
                cells.append(
                    Cell(figure: index, k: Double(k), successes: Double(counts.successes), trials: Double(counts.trials)))
            }
        }
        mostEarlierPrompts = answers.values.flatMap(\.keys).max() ?? 0
        let identified = !holdSlope && Self.slopeVaries(cells, figures: names.count)
        var fit = Newton(cells: cells, figures: names.count, slope: identified ? nil : max(0, baseSlope))
        fit.maximise()
        let variances = fit.variances()
        var chances: [String: Estimate] = [:]
        for (index, name) in names.enumerated() {
            let own = cells.filter { $0.figure == index }
            let trials = own.reduce(0) { $0 + $1.trials }
            // A figure whose answers all agree has its chance at 0 or 1, where the likelihood
            // is flat and says nothing of the spread: Wilson's interval of its answers, moved
            // onto the line as its mean answer is, says what they allow.
            let interval =
                variances[index].map { Self.wald(fit.x[index], $0, upper: 1) }
                ?? Self.wilsonOnTheLine(own, slope: fit.slope, holding: fit.x[index])
            chances[name] = Estimate(value: fit.x[index], interval: interval, n: Int(trials))
        }
        self.chances = chances
        slopeUsed = fit.slope
        if identified {
            let answered = Int(cells.reduce(0) { $0 + $1.trials })
            let interval = variances[names.count].map { Self.wald(fit.slope, $0, upper: 1) } ?? Interval(low: 0, high: 1)
            slope = Estimate(value: fit.slope, interval: interval, n: answered)
        } else {
            slope = nil
        }
    }

    /// Whether some figure has answers at two different numbers of earlier prompts.
    private static func slopeVaries(_ cells: [Cell], figures: Int) -> Bool {
        (0..<figures).contains { figure in Set(cells.filter { $0.figure == figure }.map(\.k)).count > 1 }
    }

    /// `value ± z·√variance`, within [0, upper].
    private static func wald(_ value: Double, _ variance: Double, upper: Double) -> Interval {
        let half = Confidence.z * variance.squareRoot()
        return Interval(low: max(0, value - half), high: min(upper, value + half))
    }

    /// Wilson's interval of a figure's pooled answers, shifted by `slope` × their mean number
    /// of earlier prompts, within [0, 1] and holding `value`. All noes allow any chance down to
    /// 0 (the line is past zero at their prompts), all yeses any up to 1.
    private static func wilsonOnTheLine(_ cells: [Cell], slope: Double, holding value: Double) -> Interval {
        let trials = cells.reduce(0) { $0 + $1.trials }, successes = cells.reduce(0) { $0 + $1.successes }
        guard trials > 0 else { return Interval(low: 0, high: 1) }
        let shift = slope * cells.reduce(0) { $0 + $1.k * $1.trials } / trials
        let pooled = Confidence.wilson(successes: Int(successes), of: Int(trials))
        let low = successes == 0 ? 0 : min(1, pooled.low + shift)
        let high = successes == trials ? 1 : min(1, pooled.high + shift)
        return Interval(low: min(low, value), high: max(high, value))
    }

    /// The maximisation: `x` holds each figure's chance, then the slope (unless held).
    private struct Newton {
        let cells: [Cell]
        let figures: Int
        let heldSlope: Double?
        var x: [Double]

        init(cells: [Cell], figures: Int, slope: Double?) {
            self.cells = cells
            self.figures = figures
            heldSlope = slope
            // Start with no slope at each figure's plain share, where every cell's chance is
            // strictly inside (0, 1) and the likelihood finite. With a held slope, start each
            // chance where its mean answer sits on the line, and above the last cell with a yes.
            x = (0..<figures).map { figure in
                let own = cells.filter { $0.figure == figure }
                let trials = max(1, own.reduce(0) { $0 + $1.trials })
                let share = own.reduce(0) { $0 + $1.successes } / trials
                guard let slope else { return min(1 - 1e-6, max(1e-6, share)) }
                let meanK = own.reduce(0) { $0 + $1.k * $1.trials } / trials
                let lastYes = own.filter { $0.successes > 0 }.map(\.k).max() ?? 0
                return min(1 - 1e-6, max(share + slope * meanK, lastYes * slope + 1e-6))
            }
            if slope == nil { x.append(0) }
        }

        var slope: Double { heldSlope ?? x[figures] }

        /// The log-likelihood at `point`; −∞ where a cell with a yes has no chance of one (or a
        /// cell with a no is certain).
        func logLikelihood(_ point: [Double]) -> Double {
            let slope = heldSlope ?? point[figures]
            var total = 0.0
            for cell in cells {
                let p = point[cell.figure] - cell.k * slope
                if p <= 0 {
                    if cell.successes > 0 { return -.infinity }
                } else if p >= 1 {
                    if cell.successes < cell.trials { return -.infinity }
                } else {
                    total += cell.successes * log(p) + (cell.trials - cell.successes) * log(1 - p)
                }
            }
            return total
        }

        /// The gradient and the observed information (minus the Hessian) at `x`.
        func derivatives() -> (gradient: [Double], information: [[Double]]) {
            let size = x.count
            var gradient = [Double](repeating: 0, count: size)
            var information = [[Double]](repeating: [Double](repeating: 0, count: size), count: size)
            let slope = self.slope
            for cell in cells {
                let p = x[cell.figure] - cell.k * slope
                guard p > 0, p < 1 else { continue }
                let fails = cell.trials - cell.successes
                let first = cell.successes / p - fails / (1 - p)
                let second = cell.successes / (p * p) + fails / ((1 - p) * (1 - p))
                gradient[cell.figure] += first
                information[cell.figure][cell.figure] += second
                if heldSlope == nil {
                    gradient[figures] -= cell.k * first
                    information[cell.figure][figures] -= cell.k * second
                    information[figures][cell.figure] -= cell.k * second
                    information[figures][figures] += cell.k * cell.k * second
                }
            }
            return (gradient, information)
        }

        /// Newton steps, each halved until it does not lower the likelihood, within the
        /// parameters' range ([0, 1] for chances and slope).
        mutating func maximise() {
            var current = logLikelihood(x)
            guard current > -.infinity else { return }
            for _ in 0..<200 {
                let (gradient, information) = derivatives()
                guard let step = Self.solveLive(information, gradient) else { return }
                var scale = 1.0
                var moved = false
                for _ in 0..<50 {
                    let candidate = zip(x, step).map { min(1, max(0, $0 + scale * $1)) }
                    let value = logLikelihood(candidate)
                    if value >= current {
                        let change = zip(candidate, x).map { abs($0 - $1) }.max() ?? 0
                        x = candidate
                        current = value
                        moved = change > 1e-12
                        break
                    }
                    scale /= 2
                }
                if !moved { return }
            }
        }

        /// Each parameter's variance: the diagonal of the observed information's inverse, over
        /// the parameters some cell still informs; `nil` for the others (a chance at 0 or 1
        /// that all its answers agree with) and when the rest is singular.
        func variances() -> [Double?] {
            let (_, information) = derivatives()
            let size = information.count
            var result = [Double?](repeating: nil, count: size)
            for index in 0..<size where information[index][index] > 0 {
                var unit = [Double](repeating: 0, count: size)
                unit[index] = 1
                guard let solved = Self.solveLive(information, unit), solved[index].isFinite, solved[index] >= 0 else {
                    continue
                }
                result[index] = solved[index]
            }
            return result
        }

        /// Solves `matrix · v = vector` over the rows and columns with information (a positive
        /// diagonal), the others left at 0: a figure whose cells all sit at 0 or 1 must not stop
        /// the others' steps; `nil` if the rest is singular.
        static func solveLive(_ matrix: [[Double]], _ vector: [Double]) -> [Double]? {
            let live = vector.indices.filter { matrix[$0][$0] > 0 }
            guard !live.isEmpty else { return nil }
            let reduced = live.map { row in live.map { matrix[row][$0] } }
            guard let solved = solve(reduced, live.map { vector[$0] }) else { return nil }
            var result = [Double](repeating: 0, count: vector.count)
            for (position, index) in live.enumerated() { result[index] = solved[position] }
            return result
        }

        /// Solves `matrix · v = vector` by elimination with partial pivoting; `nil` if singular.
        static func solve(_ matrix: [[Double]], _ vector: [Double]) -> [Double]? {
            let size = vector.count
            var a = matrix
            var b = vector
            for column in 0..<size {
                guard let pivot = (column..<size).max(by: { abs(a[$0][column]) < abs(a[$1][column]) }),
                    abs(a[pivot][column]) > 1e-12
                else { return nil }
                a.swapAt(column, pivot)
                b.swapAt(column, pivot)
                for row in (column + 1)..<size where a[row][column] != 0 {
                    let factor = a[row][column] / a[column][column]
                    for k in column..<size { a[row][k] -= factor * a[column][k] }
                    b[row] -= factor * b[column]
                }
            }
            var result = [Double](repeating: 0, count: size)
            for row in stride(from: size - 1, through: 0, by: -1) {
                var sum = b[row]
                for k in (row + 1)..<size { sum -= a[row][k] * result[k] }
                result[row] = sum / a[row][row]
            }
            return result
        }
    }
}
