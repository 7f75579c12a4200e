// libFuzzer entry for JMAP's method-call processing: the request object's calls answered in order, their result
// references (RFC 8620 section 3.7) resolved against the answers so far, and the response budget
// (JMAPResponses). Built by scripts/fuzz with JMAPResponses.swift, ResultReferences.swift and MethodError.swift as
// one module over JSON's JSONValue; not part of the SwiftPM package.
//
// The methods are stand-ins that answer with what they are given, so that references can grow answers as fast as
// a request can make them: `Core/echo` (its arguments), `Test/twice` (its arguments twice) and `Test/fill` (a string
// of `n` bytes). Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. Nothing crashes, and nothing past the budget is allocated (libFuzzer's -rss_limit_mb stops a blow-up).
// 2. The answers kept are never more than the budget, serialized; the budget left is exactly the budget less them.
// 3. Resolved arguments that a method is given fit in what is left of the budget.

import JSON

#if canImport(Glibc)
    import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

private let budget = 64 * 1024

private func perform(_ name: String, _ arguments: [(String, JSONValue)]) throws(MethodError) -> [(String, JSONValue)] {
    switch name {
    case "Core/echo": return [(name, .object(arguments))]
    case "Test/twice": return [(name, .array([.object(arguments), .object(arguments)]))]
    case "Test/fill":
        let count = arguments.first { $0.0 == "n" }?.1.intValue ?? 0
        // Past the budget anyway beyond 1 MiB; the cap keeps the stand-in itself from allocating without bound.
        return [(name, .string(String(repeating: "x", count: Int(max(0, min(count, 1 << 20))))))]
    default: throw MethodError.unknownMethod(name)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJMAPRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let request = try? JSONValue.parse(input, limits: .requestBody(maximumBytes: 8192)),
        let calls = request["methodCalls"]?.arrayValue
    else { return 0 }
    var responses = JMAPResponses(budget: budget)
    for call in calls.prefix(32) {
        guard let parts = call.arrayValue, parts.count == 3, let name = parts[0].stringValue,
            let arguments = parts[1].objectValue, let callID = parts[2].stringValue
        else { continue }
        do {
            let resolved = try responses.resolve(arguments)
            let size = JSONValue.object(resolved).serializedCount(notExceeding: responses.bytesLeft)
            require(size != nil, "resolved arguments past the \(responses.bytesLeft) bytes left")
            try responses.keep(try perform(name, resolved), callID: callID)
        } catch {
            responses.keep(error, callID: callID)
        }
    }
    var kept = 0
    for response in responses.list where response.name != "error" {
        kept += response.arguments.serialize().count
    }
    require(kept <= budget, "\(kept) bytes kept of a \(budget)-byte budget")
    require(responses.bytesLeft == budget - kept, "\(responses.bytesLeft) left, \(budget - kept) expected")
    return 0
}
