// libFuzzer entry for the SMTP client's reply parser and session machine, and the MTA-STS parsers (the pure files of
// Sources/SMTPClient). Built by scripts/fuzz together with those files into one module; not part of the SwiftPM
// package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. The reply parser never crashes; it returns the same replies, or throws the same error, whether the input comes
//    whole or one byte at a time; every reply has a code from 200 to 599 and at most maxLines lines.
// 2. A client session fed the input as a server's bytes never crashes, and once it is over every recipient is decided.
// 3. The MTA-STS policy and TXT record parsers never crash; a policy they accept keeps RFC 8461's rules.

#if canImport(Glibc)
    import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMTPReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = SMTPReplyLimits(maxLineLength: 128, maxLines: 8)

    var whole = SMTPReplyParser(limits: limits)
    let wholeResult = Result { () throws(SMTPReplyError) in try whole.feed(input) }
    var single = SMTPReplyParser(limits: limits)
    var singleReplies: [SMTPClientReply] = []
    var singleResult: Result<[SMTPClientReply], SMTPReplyError>?
    for byte in input {
        do {
            singleReplies += try single.feed(CollectionOfOne(byte))
        } catch {
            singleResult = .failure(error)
            break
        }
    }
    let byteByByte = singleResult ?? .success(singleReplies)
    require(wholeResult == byteByByte, "whole \(wholeResult) vs byte by byte \(byteByByte)")
    if case .success(let replies) = wholeResult {
        for reply in replies {
            require((200...599).contains(reply.code), "code \(reply.code)")
            require(reply.lines.count <= limits.maxLines, "\(reply.lines.count) lines")
        }
    }

    var configuration = SMTPClientConfiguration(
        heloName: "fuzz.test", tls: .opportunistic, credentials: SMTPCredentials(username: "u", password: "p"))
    configuration.replyLimits = limits
    let message = SMTPOutboundMessage(
        sender: "a@fuzz.test", recipients: ["b@fuzz.test", "c@fuzz.test"], content: Array("x\r\n.\r\n".utf8))
    var session = SMTPClientSession(configuration: configuration, messages: [message, message])
    _ = session.connected()
    var rest = input[...]
    while !rest.isEmpty && !session.isFinished {
        // The input splits itself: its first byte says how many of the next bytes form one read.
        let count = min(rest.count - 1, Int(rest.first! % 64) + 1)
        let chunk = rest.dropFirst().prefix(count)
        rest = rest.dropFirst(count + 1)
        let actions = session.receive(chunk)
        if actions.contains(.startTLS) { _ = session.tlsEstablished() }
    }
    if !session.isFinished { _ = session.connectionFailed("end of input") }
    require(session.isFinished, "a failed connection leaves the session open")
    require(!session.results.joined().contains { $0.detail == "not attempted" }, "an undecided recipient")

    let text = String(decoding: input, as: UTF8.self)
    if let policy = try? MTASTSPolicy.parse(text) {
        require(policy.maxAge <= MTASTSPolicy.maximumMaxAge, "max_age \(policy.maxAge)")
        require(policy.mode == .none || !policy.mxPatterns.isEmpty, "enforce or testing without mx")
        for pattern in policy.mxPatterns { _ = policy.matches(mxHost: pattern) }
    }
    if let record = try? MTASTSRecord.parse(text) {
        require((1...32).contains(record.id.count), "id of \(record.id.count) characters")
    }
    return 0
}
