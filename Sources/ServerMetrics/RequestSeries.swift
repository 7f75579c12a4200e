import HTTP1
import Synchronization

/// `postern_http_requests_total` and `postern_http_request_duration_seconds`: how many requests were answered and
/// how long they took, by route template, method and status, in the Prometheus text format swift-prometheus writes
/// for a counter and a histogram.
///
/// Kept here rather than in swift-prometheus's `Counter` and `ValueHistogram`, because they are written on every
/// request: recording there took the series table's lock, the histogram's own lock and a pass over all 15 buckets,
/// and every event loop wrote the same locks and counts (see docs/performance.md, "Hot path"). Here a request takes one uncontended lock on its own loop's
/// shard, finds its series without hashing and adds to one bucket and the sum; the shards are summed, and the
/// buckets made cumulative, when `/metrics` is read.
final class RequestSeries: Sendable {
    /// What tells one series from another.
    struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// A loop's series behind their own lock, in a class so that the shards can be kept in an array.
    private final class ShardBox: Sendable {
        let mutex = Mutex(Shard())
    }

    /// The series one loop has written.
    private struct Shard {
        /// Each series' index in `keys` by route, then found by status and method.
        var byRoute = LengthGroupedTable<[Int]>()
        var keys: [Key] = []
        /// Per series, `stride` numbers: the requests of each bucket alone (the first bound not below the duration;
        /// the last, above every bound), then the sum of the durations in nanoseconds.
        var counts: [UInt64] = []
    }

    /// The buckets' upper bounds in nanoseconds, ascending.
    let bounds: [UInt64]
    /// The bounds as the `le` label spells them: Prometheus's spelling of the bound in seconds (`0.00025`, `1.0`).
    private let boundLabels: [String]
    private let shards: [ShardBox]
    private var stride: Int { bounds.count + 2 }

    /// Series over `buckets` (ascending), written by up to `shardCount` loops without sharing a lock.
    init(buckets: [Duration], shardCount: Int) {
        bounds = buckets.map { UInt64($0 / .nanoseconds(1)) }
        boundLabels = buckets.map { ($0 / .seconds(1)).description }
        shards = (0..<max(1, shardCount)).map { _ in ShardBox() }
    }

    /// Records one request answered after `nanoseconds`, on the shard of loop `loop`.
    func record(route: String, method: String, status: Int, nanoseconds: UInt64, loop: Int) {
        var bucket = 0
        while bucket < bounds.count && nanoseconds > bounds[bucket] { bucket += 1 }
        let stride = self.stride
        shards[loop % shards.count].mutex.withLock { shard in
            var found: Int?
            if let indices = shard.byRoute[route] {
                for index in indices where shard.keys[index].status == status && shard.keys[index].method == method {
                    found = index
                    break
                }
            }
            let index =
                found
                ?? {
                    shard.keys.append(Key(route: route, method: method, status: status))
                    shard.counts.append(contentsOf: repeatElement(0, count: stride))
                    let index = shard.keys.count - 1
                    shard.byRoute.modify(route, initial: []) { $0.append(index) }
                    return index
                }()
            shard.counts[index * stride + bucket] &+= 1
            shard.counts[index * stride + stride - 1] &+= nanoseconds
        }
    }

    /// Appends both families, with their `# HELP` and `# TYPE` lines, in the order their series were first written.
    func emit(into buffer: inout [UInt8]) {
        var keys: [Key] = []
        var totals: [UInt64] = []
        var indexByKey: [Key: Int] = [:]
        let stride = self.stride
        for box in shards {
            let shard = box.mutex.withLock { $0 }
            for (position, key) in shard.keys.enumerated() {
                let index =
                    indexByKey[key]
                    ?? {
                        keys.append(key)
                        totals.append(contentsOf: repeatElement(0, count: stride))
                        indexByKey[key] = keys.count - 1
                        return keys.count - 1
                    }()
                for offset in 0..<stride {
                    totals[index * stride + offset] &+= shard.counts[position * stride + offset]
                }
            }
        }
        let requests = "postern_http_requests_total"
        buffer.appendText("# HELP \(requests) HTTP requests answered, by route template, method and status.\n")
        buffer.appendText("# TYPE \(requests) counter\n")
        for (index, key) in keys.enumerated() {
            let count = totals[index * stride..<index * stride + stride - 1].reduce(0, &+)
            buffer.appendText("\(requests)\(Self.labels(key)) \(count)\n")
        }
        let duration = "postern_http_request_duration_seconds"
        buffer.appendText(
            "# HELP \(duration) Time from a complete request to its response, by route template, method and status.\n")
        buffer.appendText("# TYPE \(duration) histogram\n")
        for (index, key) in keys.enumerated() {
            let labels = Self.labels(key, closed: false)
            var cumulative: UInt64 = 0
            for (bucket, bound) in boundLabels.enumerated() {
                cumulative &+= totals[index * stride + bucket]
                buffer.appendText("\(duration)_bucket\(labels),le=\"\(bound)\"} \(cumulative)\n")
            }
            cumulative &+= totals[index * stride + bounds.count]
            let seconds = Double(totals[index * stride + stride - 1]) / 1e9
            buffer.appendText("\(duration)_bucket\(labels),le=\"+Inf\"} \(cumulative)\n")
            buffer.appendText("\(duration)_sum\(labels)} \(seconds)\n")
            buffer.appendText("\(duration)_count\(labels)} \(cumulative)\n")
        }
    }

    /// `{route="…",method="…",status="…"}`, the values escaped as the text format requires; without the closing
    /// brace when `closed` is false.
    private static func labels(_ key: Key, closed: Bool = true) -> String {
        let pairs = [("route", key.route), ("method", key.method), ("status", String(key.status))]
        let text = pairs.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: ",")
        return "{" + text + (closed ? "}" : "")
    }

    /// A label value with backslash, double quote and line feed escaped.
    private static func escaped(_ value: String) -> String {
        var text = ""
        for character in value {
            switch character {
            case "\\": text += #"\\"#
            case "\"": text += #"\""#
            case "\n": text += #"\n"#
            default: text.append(character)
            }
        }
        return text
    }
}

extension [UInt8] {
    fileprivate mutating func appendText(_ text: String) {
        append(contentsOf: text.utf8)
    }
}
