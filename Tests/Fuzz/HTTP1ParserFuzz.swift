// libFuzzer entry for the HTTP1 parser. Built by scripts/fuzz together with Sources/HTTP1/*.swift
// into one module (so internal API is reachable); not part of the SwiftPM package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. The parser never crashes, loops, or grows past its limits on any bytes.
// 2. Feeding the input whole and feeding it in pieces (split points taken from the input itself)
//    gives the same requests and the same error: parsing is independent of how TCP splits bytes.
// 3. Every parsed body respects the body limit; every header count respects the header limit.
// 4. Encoding a response that echoes request data never lets a CR or LF into a header line.
// 5. The request helpers (query, cookies, form fields, bearer) never crash on parsed input.

/// The observable result of parsing, for comparing two feedings.
private struct Outcome: Equatable {
    var requests: [String] = []
    var error: HTTPParseError.Code?
}

private func summary(_ request: HTTPRequest, keepAlive: Bool) -> String {
    var text = "\(request.method.rawValue) \(request.target) \(request.version) ka=\(keepAlive)"
    for field in request.headers { text += "|\(field.name):\(field.value)" }
    text += "|body=\(request.body.count):\(request.body.reduce(0) { ($0 &* 31) &+ Int($1) })"
    return text
}

private func run(_ input: UnsafeBufferPointer<UInt8>, splits: [Int]) -> Outcome {
    var parser = HTTPRequestParser(limits: fuzzLimits)
    var outcome = Outcome()
    var start = 0
    let ends = splits + [input.count]
    for end in ends where end >= start {
        parser.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[start..<end])))
        start = end
        do {
            while let event = try parser.next() {
                switch event {
                case .head(let head):
                    if let length = head.contentLength, length > 512 { parser.setBodyLimit(length) }
                case .request(let request, let keepAlive):
                    precondition(request.body.count <= max(fuzzLimits.maxBodyLength, 1 << 20), "body over limit")
                    precondition(request.headers.count <= fuzzLimits.maxHeaderCount, "too many headers")
                    outcome.requests.append(summary(request, keepAlive: keepAlive))
                    exercise(request)
                }
            }
        } catch {
            outcome.error = error.code
            precondition(parser.hasFailed)
            return outcome
        }
        precondition(parser.bufferedByteCount <= input.count, "buffer grew beyond input")
    }
    return outcome
}

/// Runs the helpers and the encoder on a parsed request.
private func exercise(_ request: HTTPRequest) {
    _ = request.queryItem("a")
    _ = request.queryItems
    _ = request.cookie("session")
    _ = request.bearerToken
    _ = request.formFields()
    _ = request.acceptsJSON
    _ = request.contentTypeIsJSON
    var router = Router()
    router.add(.GET, "/api/accounts/{id}", .immediate { _, _ in HTTPResponse(status: .ok) })
    router.add(.POST, "/api/accounts", .immediate { _, _ in HTTPResponse(status: .ok) })
    _ = router.match(method: request.method, path: request.path)

    // Echo request data into response headers: the encoder must keep every line intact.
    var response = HTTPResponse(status: HTTPStatus(code: 200, reason: request.target), body: request.body)
    for field in request.headers { response.headers.add(field.name, field.value) }
    response.headers.add(request.target, request.path)
    var out: [UInt8] = []
    let encoder = HTTPResponseEncoder(serverName: "fuzz")
    encoder.encode(
        response,
        context: .init(method: request.method, version: request.version, keepAlive: true, requestID: request.target),
        date: HTTPDate.imfFixdate(unixSeconds: 0), into: &out)
    // The head must be CRLF-separated lines with no stray CR or LF inside a line.
    var index = 0
    var headEnded = false
    while index < out.count && !headEnded {
        let byte = out[index]
        if byte == 0x0D {
            precondition(index + 1 < out.count && out[index + 1] == 0x0A, "bare CR in response head")
            if index + 3 < out.count && out[index + 2] == 0x0D && out[index + 3] == 0x0A { headEnded = true }
            index += 2
            continue
        }
        precondition(byte != 0x0A, "bare LF in response head")
        precondition(byte != 0x00, "NUL in response head")
        index += 1
    }
    precondition(headEnded, "response head not terminated")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1Parser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    let whole = run(input, splits: [])
    // Split points derived from the input so the fuzzer can steer them.
    var splits: [Int] = []
    if size > 0 {
        var position = 0
        var seed = Int(input[0]) &+ 1
        while position < size {
            position += 1 + (seed % 7)
            seed = (seed &* 1_103_515_245 &+ 12_345) & 0x7FFF_FFFF
            if position < size { splits.append(position) }
        }
    }
    let pieces = run(input, splits: splits)
    precondition(whole == pieces, "whole and split feeding disagree")
    let byteByByte = run(input, splits: Array(0..<size))
    precondition(whole == byteByByte, "whole and byte-by-byte feeding disagree")
    return 0
}
