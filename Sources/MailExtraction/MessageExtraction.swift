import MIME

/// The one-time codes and the links of a message (issue 85), found once, purely: a parsed message in, values out, no
/// I/O, bounded by ``ExtractionLimits``.
///
/// Codes are read from the decoded subject and from the body: the decoded text part, else (when it has none, or
/// none that is a code: a text part that only says to view the HTML) the HTML part's visible text
/// (``HTMLVisibleText``), so that parts that disagree give the text part's answer. Code-shaped tokens
/// (``CodeTokenizer``) are weighed by the words around them and their position (``CodeScorer``); a token that reaches
/// ``minimumScore`` is a code. Precision comes first: a message without a
/// code gives none, and a token is never a code for its shape alone. A code written in the subject and the body is
/// one code, its score the better of the two and 5 more; codes are returned best first (then subject, body, then by
/// position).
///
/// Links are every `http(s)` link of the message with its visible text and kind (``LinkCollector``, ``LinkText``).
public struct MessageExtraction: Sendable, Equatable, Codable {
    /// The score a token needs to be a code.
    public static let minimumScore = 50

    /// The codes, best first; empty when the message has none.
    public var codes: [ExtractedCode]
    /// The links: verify, sign-in and reset ones first, best first; then the others in the order they came.
    public var links: [ExtractedLink]

    public init(codes: [ExtractedCode], links: [ExtractedLink]) {
        self.codes = codes
        self.links = links
    }

    /// The codes and links of `message`.
    public static func extract(from message: ParsedMessage, limits: ExtractionLimits = .default) -> MessageExtraction {
        let subject = SourceText(plain: message.subject ?? "", capacity: limits.maximumSubjectScalars)
        let text = message.textBody.map { SourceText(plain: $0, capacity: limits.maximumTextScalars) }
        let html = message.htmlBody.map { HTMLVisibleText(html: $0, limits: limits) }

        let subjectScorer = CodeScorer(subject, source: .subject, subjectKeyword: 0, limits: limits)
        let subjectKeyword = subjectScorer.bestKeyword
        var sources: [(CodeSource, [CodeScorer.Scored])] = [(.subject, subjectScorer.codes())]
        let textCodes = text.map {
            CodeScorer($0, source: .text, subjectKeyword: subjectKeyword, limits: limits).codes()
        }
        if let textCodes, !textCodes.isEmpty {
            sources.append((.text, textCodes))
        } else if let html {
            let scorer = CodeScorer(html.text, source: .html, subjectKeyword: subjectKeyword, limits: limits)
            sources.append((.html, scorer.codes()))
        }

        var links = LinkCollector(limits: limits)
        if let html {
            links.add(anchors: html.anchors, in: html.text)
        }
        if let text { links.addBareURLs(in: text) }
        if let html { links.addBareURLs(in: html.text, covered: html.anchors.map { $0.position..<$0.end }) }
        for header in message.headers where header.name.lowercased() == "list-unsubscribe" {
            links.addUnsubscribeHeader(header.value)
        }
        return MessageExtraction(codes: merge(sources, maximum: limits.maximumCodes), links: links.links)
    }

    /// The codes and links of the raw message `raw`; none when it passes one of `mimeLimits`.
    public static func extract(
        raw: [UInt8], limits: ExtractionLimits = .default, mimeLimits: MIMELimits = .default
    ) -> MessageExtraction {
        guard let message = try? MIMEParser.parse(raw, limits: mimeLimits) else {
            return MessageExtraction(codes: [], links: [])
        }
        return extract(from: message, limits: limits)
    }

    /// One code per value (its groups' separators aside), best first.
    private static func merge(_ sources: [(CodeSource, [CodeScorer.Scored])], maximum: Int) -> [ExtractedCode] {
        struct Merged {
            var code: ExtractedCode
            var best: Int
            var order: Int
        }
        var merged: [String: Merged] = [:]
        var order = 0
        for (source, found) in sources {
            for scored in found {
                let key = String(
                    String.UnicodeScalarView(scored.value.unicodeScalars.filter(CodeTokenizer.isAlphanumeric)))
                order += 1
                guard var entry = merged[key] else {
                    merged[key] = Merged(
                        code: ExtractedCode(
                            value: scored.value, sources: [source], score: scored.score, reasons: scored.reasons),
                        best: scored.score, order: order)
                    continue
                }
                if !entry.code.sources.contains(source) { entry.code.sources.append(source) }
                if scored.score > entry.best {
                    entry.best = scored.score
                    entry.code.value = scored.value
                }
                let reasons = Set(entry.code.reasons + scored.reasons)
                entry.code.reasons = CodeReason.allCases.filter(reasons.contains)
                merged[key] = entry
            }
        }
        let codes = merged.values.map { entry -> (ExtractedCode, Int) in
            var code = entry.code
            code.score = entry.best + 5 * (code.sources.count - 1)
            if code.sources.count > 1 {
                code.reasons = CodeReason.allCases.filter { Set(code.reasons + [.severalSources]).contains($0) }
            }
            return (code, entry.order)
        }
        return codes.sorted { $0.0.score != $1.0.score ? $0.0.score > $1.0.score : $0.1 < $1.1 }.prefix(maximum).map(
            \.0)
    }
}
