// libFuzzer entry for the HTTP1 parser's repeated-head cache (`RepeatedHead`). Built by scripts/fuzz together with
// Sources/HTTP1/*.swift into one module (so internal API is reachable); not part of the SwiftPM package.
//
// The property, checked on every input (a violation traps, which libFuzzer reports as a crash): a parser that keeps
// its last head and one that parses every head afresh, fed the same bytes in the same reads and told the same
// things (body limits, reclaimed requests), give the same events and the same error, byte for byte. The input is
// fed twice over, so that every head it holds comes again; how it is split into reads is taken from its first byte.

/// Events as bytes: each field with its length before it, so that no two different event lists serialize alike.
private struct Transcript {
    var bytes: [UInt8] = []

    mutating func field(_ text: String) {
        number(text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }

    mutating func number(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func headers(_ headers: HTTPHeaders) {
        number(headers.count)
        for header in headers {
            field(header.name)
            field(header.value)
        }
    }

    mutating func head(_ head: HTTPRequestHead) {
        bytes.append(0x48)  // H
        field(head.method.rawValue)
        field(head.target)
        field("\(head.version)")
        headers(head.headers)
        number(head.contentLength ?? -1)
        number((head.isChunked ? 1 : 0) | (head.expectsContinue ? 2 : 0) | (head.keepAlive ? 4 : 0))
    }

    mutating func request(_ request: HTTPRequest, keepAlive: Bool) {
        bytes.append(0x52)  // R
        field(request.method.rawValue)
        field(request.target)
        field(request.path)
        field(request.query ?? "\u{0}none")
        field("\(request.version)")
        headers(request.headers)
        number(request.body.count)
        bytes.append(contentsOf: request.body)
        number(keepAlive ? 1 : 0)
    }

    mutating func error(_ error: HTTPParseError) {
        bytes.append(0x45)  // E
        field("\(error.code)")
        field("\(error.status.code)")
    }
}

/// One parser and what it said so far.
private struct Feeding {
    var parser: HTTPRequestParser
    var transcript = Transcript()
    /// Requests held rather than reclaimed, as a handler that keeps its request would.
    var held: [HTTPRequest] = []

    init(cached: Bool) {
        parser = HTTPRequestParser(limits: fuzzLimits, cachesRepeatedHead: cached)
    }

    /// Feeds one read and takes every event it completes; false once the parser failed.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, reclaimEvery: Int) -> Bool {
        parser.append(UnsafeRawBufferPointer(bytes))
        do {
            while let event = try parser.next() {
                switch consume event {
                case .head(let head):
                    transcript.head(head)
                    // A route with a larger body limit, as the server sets one from the head.
                    if let length = head.contentLength, length > 512 { parser.setBodyLimit(length) }
                case .request(let request, let keepAlive):
                    transcript.request(request, keepAlive: keepAlive)
                    // Reclaimed requests hand their storage and header room to the next head; held ones share
                    // theirs with the kept head. Both ways must give the same events.
                    if (transcript.bytes.count + held.count) % reclaimEvery == 0 {
                        held.append(request)
                    } else {
                        parser.reclaim(request)
                    }
                }
            }
        } catch {
            transcript.error(error)
            return false
        }
        return true
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRepeatedHead(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let stream = input + input
    let control = Int(input[0])
    // Reads: the whole stream at once, the input per read, or pieces whose lengths the input steers.
    var ends: [Int]
    switch control % 3 {
    case 0: ends = [stream.count]
    case 1: ends = [size, stream.count]
    default:
        ends = []
        var position = 0
        var seed = control &+ 1
        while position < stream.count {
            position = min(stream.count, position + 1 + seed % 61)
            seed = (seed &* 1_103_515_245 &+ 12_345) & 0x7FFF_FFFF
            ends.append(position)
        }
    }
    let reclaimEvery = 2 + (control >> 2) % 5
    var cached = Feeding(cached: true)
    var fresh = Feeding(cached: false)
    stream.withUnsafeBufferPointer { stream in
        var start = 0
        for end in ends {
            let read = UnsafeBufferPointer(rebasing: stream[start..<end])
            start = end
            let cachedGoesOn = cached.feed(read, reclaimEvery: reclaimEvery)
            let freshGoesOn = fresh.feed(read, reclaimEvery: reclaimEvery)
            precondition(cached.transcript.bytes == fresh.transcript.bytes, "cached and fresh parses disagree")
            precondition(cachedGoesOn == freshGoesOn)
            if !cachedGoesOn { break }
        }
    }
    return 0
}
