// libFuzzer entry for the extraction of codes and links (issue 85). Built by scripts/fuzz with
// Sources/MailExtraction/*.swift into one module, over MIME (and its Time and Base64Coding) as static libraries; not
// part of the SwiftPM package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. Extraction never crashes, whatever the bytes: read as a whole message, and as a subject, a text part and an
//    HTML part of their own.
// 2. Its answer keeps its limits: at most maximumCodes codes and maximumLinks links.
// 3. Every code reached the minimum score, is 4-10 letters and digits (its separators aside), with a digit and no
//    lower-case letter; every link is an http(s) URL, each once.

import MIME

#if canImport(Glibc)
    import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

private func check(_ extraction: MessageExtraction, limits: ExtractionLimits) {
    require(extraction.codes.count <= limits.maximumCodes, "\(extraction.codes.count) codes")
    require(extraction.links.count <= limits.maximumLinks, "\(extraction.links.count) links")
    for code in extraction.codes {
        let characters = code.value.unicodeScalars.filter { $0 != " " && $0 != "-" }
        require(code.score >= MessageExtraction.minimumScore, "code \(code.value) scored \(code.score)")
        require((4...10).contains(characters.count), "code \(code.value) of \(characters.count) characters")
        require(characters.contains { ("0"..."9").contains($0) }, "code \(code.value) without a digit")
        require(!characters.contains { ("a"..."z").contains($0) }, "code \(code.value) with a lower-case letter")
    }
    var seen = Set<String>()
    for link in extraction.links {
        require(LinkText.isWebURL(link.url), "link \(link.url) is not a web URL")
        require(seen.insert(link.url).inserted, "link \(link.url) twice")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMailExtraction(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = ExtractionLimits(
        maximumHTMLBytes: 4096, maximumTextScalars: 4096, maximumSubjectScalars: 200, maximumElementDepth: 16,
        maximumCandidates: 64, maximumCodes: 4, maximumLinks: 16)
    let mimeLimits = MIMELimits(maximumHeaderBytes: 4096, maximumHeaderCount: 64, maximumDepth: 4, maximumParts: 64)
    check(MessageExtraction.extract(raw: input, limits: limits, mimeLimits: mimeLimits), limits: limits)
    let text = String(decoding: input, as: UTF8.self)
    var message = ParsedMessage()
    message.subject = String(text.prefix(300))
    message.textBody = text
    message.htmlBody = text
    check(MessageExtraction.extract(from: message, limits: limits), limits: limits)
    return 0
}
