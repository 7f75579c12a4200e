import MIME

/// Gathers a message's links (issue 85): the HTML part's anchors with their visible text, the bare URLs of the text
/// part and of the HTML's visible text outside anchors, then the `http(s)` URLs of `List-Unsubscribe`; each URL once
/// (the first text that is not empty, the surest kind); verify, sign-in and reset links first, the surest first,
/// then the others in the order they came. At most `maximumLinks`.
struct LinkCollector {
    private struct Found {
        var url: String
        var text: String
        var kind: LinkKind
        var strength: Int
        var emphasized: Bool
        var order: Int
    }

    private var found: [Found] = []
    private var index: [String: Int] = [:]
    private let limits: ExtractionLimits

    init(limits: ExtractionLimits) {
        self.limits = limits
    }

    mutating func add(anchors: [HTMLVisibleText.Anchor], in text: SourceText) {
        for anchor in anchors {
            let generic = anchor.text.isEmpty || LinkText.isGeneric(anchor.text) || LinkText.isWebURL(anchor.text)
            add(
                url: anchor.href, text: anchor.text,
                context: Self.context(of: anchor.position..<anchor.end, in: text.scalars), generic: generic,
                emphasized: anchor.emphasized)
        }
    }

    /// The bare URLs of `text`, except those inside `covered` (the anchors' own text).
    mutating func addBareURLs(in text: SourceText, covered: [Range<Int>] = []) {
        for range in MessageLinks.urlRanges(in: text.scalars) where !covered.contains(where: { $0.overlaps(range) }) {
            guard range.count <= limits.maximumURLScalars else { continue }
            let url = String(scalars: text.scalars[range])
            add(
                url: url, text: "", context: Self.context(of: range, in: text.scalars), generic: true, emphasized: false
            )
        }
    }

    mutating func addUnsubscribeHeader(_ value: String) {
        for piece in value.split(separator: ",").prefix(8) {
            let url = String(piece).trimmedOfWhitespace().trimmingAngles()
            guard LinkText.isWebURL(url), url.unicodeScalars.count <= limits.maximumURLScalars else { continue }
            if let existing = index[url] {
                if found[existing].kind == .other {
                    (found[existing].kind, found[existing].strength) = (.unsubscribe, 2)
                }
                continue
            }
            append(Found(url: url, text: "", kind: .unsubscribe, strength: 2, emphasized: false, order: found.count))
        }
    }

    private mutating func add(
        url: String, text: String, context: @autoclosure () -> String, generic: Bool, emphasized: Bool
    ) {
        if let existing = index[url], found[existing].strength == 3 {
            // Known, and surely so: a repeat adds nothing (a message may repeat one link many times).
            found[existing].emphasized = found[existing].emphasized || emphasized
            return
        }
        let (kind, strength) = LinkText.kind(text: text, url: url, context: context(), textIsGeneric: generic)
        if let existing = index[url] {
            if found[existing].text.isEmpty { found[existing].text = text }
            if strength > found[existing].strength {
                (found[existing].kind, found[existing].strength) = (kind, strength)
            }
            found[existing].emphasized = found[existing].emphasized || emphasized
            return
        }
        append(Found(url: url, text: text, kind: kind, strength: strength, emphasized: emphasized, order: found.count))
    }

    private mutating func append(_ link: Found) {
        guard found.count < limits.maximumLinks else { return }
        index[link.url] = found.count
        found.append(link)
    }

    /// The links, verify, sign-in and reset first, surest first.
    var links: [ExtractedLink] {
        let ranked = found.sorted { first, second in
            let firstAction = Self.isAction(first.kind)
            let secondAction = Self.isAction(second.kind)
            if firstAction != secondAction { return firstAction }
            if firstAction {
                let firstRank = first.strength * 2 + (first.emphasized ? 1 : 0)
                let secondRank = second.strength * 2 + (second.emphasized ? 1 : 0)
                if firstRank != secondRank { return firstRank > secondRank }
            }
            return first.order < second.order
        }
        return ranked.map { ExtractedLink(url: $0.url, text: $0.text, kind: $0.kind) }
    }

    private static func isAction(_ kind: LinkKind) -> Bool { kind == .verify || kind == .signIn || kind == .reset }

    /// The words around `range`: the rest of its line, and the nearest line above with words when nothing but
    /// punctuation stands before it on its own; at most 300 characters.
    private static func context(of range: Range<Int>, in scalars: [Unicode.Scalar]) -> String {
        let lower = min(range.lowerBound, scalars.count)
        let upper = min(range.upperBound, scalars.count)
        var start = lower
        while start > 0, lower - start < 300, scalars[start - 1] != "\n" { start -= 1 }
        // Nothing before it on its line: the nearest line above with words (past empty ones).
        while !scalars[start..<lower].contains(where: { $0.isAlphabeticScalar }), start > 0, lower - start < 300 {
            start -= 1
            while start > 0, lower - start < 300, scalars[start - 1] != "\n" { start -= 1 }
        }
        var end = upper
        while end < scalars.count, end - upper < 150, scalars[end] != "\n" { end += 1 }
        return String(scalars: scalars[start..<lower]) + " "
            + String(scalars: scalars[upper..<end])
    }
}

extension String {
    /// Without the angle brackets around a header's URL (`<https://...>`).
    fileprivate func trimmingAngles() -> String {
        hasPrefix("<") && hasSuffix(">") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
