@testable import HTTP1

/// How a test feeds bytes to the parser.
enum Feeding: String, CaseIterable, Sendable {
    case whole
    case byteByByte
}

/// What a test saw from the parser: completed requests and the heads announced before bodies.
struct ParseOutcome {
    var requests: [(request: HTTPRequest, keepAlive: Bool)] = []
    var heads: [HTTPRequestHead] = []
    var error: HTTPParseError?
}

/// Feeds `raw` to a fresh parser whole or one byte at a time, collecting events until the bytes
/// run out or the parser throws. `bodyLimit` is applied at each head.
func parse(
    _ raw: String, feeding: Feeding, limits: HTTPParserLimits = HTTPParserLimits(), bodyLimit: Int? = nil
) -> ParseOutcome {
    parse(Array(raw.utf8), feeding: feeding, limits: limits, bodyLimit: bodyLimit)
}

func parse(
    _ raw: [UInt8], feeding: Feeding, limits: HTTPParserLimits = HTTPParserLimits(), bodyLimit: Int? = nil
) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = ParseOutcome()
    func drain() -> Bool {
        do {
            while let event = try parser.next() {
                switch event {
                case .head(let head):
                    outcome.heads.append(head)
                    if let bodyLimit { parser.setBodyLimit(bodyLimit) }
                case .request(let request, let keepAlive):
                    outcome.requests.append((request, keepAlive))
                }
            }
            return true
        } catch {
            outcome.error = error
            return false
        }
    }
    switch feeding {
    case .whole:
        parser.append(contentsOf: raw)
        _ = drain()
    case .byteByByte:
        for byte in raw {
            parser.append(contentsOf: [byte])
            if !drain() { break }
        }
    }
    return outcome
}
