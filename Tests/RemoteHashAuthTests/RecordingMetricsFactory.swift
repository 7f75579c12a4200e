import Metrics
import Synchronization

/// Counts counter increments by label and dimensions; every other metric goes nowhere.
final class RecordingMetricsFactory: MetricsFactory, Sendable {
    final class RecordingCounter: CounterHandler, Sendable {
        private let value = Mutex<Int64>(0)
        var total: Int64 { value.withLock { $0 } }
        func increment(by amount: Int64) { value.withLock { $0 += amount } }
        func reset() { value.withLock { $0 = 0 } }
    }

    private let counters = Mutex<[String: RecordingCounter]>([:])

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        label + "{" + dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: ",") + "}"
    }

    /// The total of the counter `label` with exactly `dimensions` (in order); 0 when never made.
    func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        counters.withLock { $0[Self.key(label, dimensions)] }?.total ?? 0
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        let key = Self.key(label, dimensions)
        return counters.withLock { counters in
            if let existing = counters[key] { return existing }
            let made = RecordingCounter()
            counters[key] = made
            return made
        }
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        NOOPMetricsHandler.instance
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: CounterHandler) {}
    func destroyRecorder(_ handler: RecorderHandler) {}
    func destroyTimer(_ handler: TimerHandler) {}
}
