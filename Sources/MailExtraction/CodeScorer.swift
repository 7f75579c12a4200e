/// Weighs the code-shaped tokens of one source by what is written around them (issue 85), and keeps those that
/// reach ``MessageExtraction/minimumScore``. The rules, for each token in order:
///
/// 1. Refused outright: a bound token (``CodeTokenizer`` rule 4); one that a label of a thing that is not a code
///    names (`Order 12345678`, `Phone: 5550 1234`, `12345 (order number)`), the label nearest before it on its line,
///    or nearest after it and nearer than any code word before; one on a meeting's line or the two after it, or on
///    a line of selling (`discount`, `checkout`, `gift`: a promotion's code) or the one after it; a
///    year-like one without a code word right before it (`code: 2024`); one of letters and digits without a code
///    word (an act word is not enough for `ABC123`).
/// 2. Labels read before it on its line (up to 80 characters back, past numbers that other labels took: `code for
///    order 1234 is 567890`), after it on its line (up to 40 characters: `123456 is your code`), or, when it starts
///    its line or stands out, on the nearest line with a label among the three above it (`Your code:` then `123456`;
///    a code word there names it whatever else the line says, else the label nearest to it). A label never reaches
///    past a token that could take it. The best label adds its weight (code word 60, act 35, prompt 20), less 5
///    after, less 10 for a code word above and 20 for an act word above, less 10 more than 40 characters before;
///    one before and one after add 15 (`Enter 482913 on the sign-in page`).
/// 3. Position: alone on its line 15; emphasized (HTML) 15; when the subject holds a code word (and does not sell)
///    and the token stands out (alone or emphasized) 30, so that `Your verification code` over a lone `123456` is one;
///    six digits 5.
/// 4. A code needs a code word (before, after, above or in the subject) or a word on its own line: an act word
///    above alone is never enough, whatever the position adds.
struct CodeScorer {
    struct Scored {
        var value: String
        var score: Int
        var reasons: [CodeReason]
        var position: Int
    }

    private let text: SourceText
    private let source: CodeSource
    /// The weight of the best code or act word of the subject (0 when it has none); a code word there adds to a
    /// token that stands out in the body, an act word does not (`Sign up today` over a newsletter's big number).
    private let subjectKeyword: Int
    private let tokens: [CodeToken]
    private let labels: [CodeLabel]
    /// Where each line starts, in order.
    private let lineStarts: [Int]

    init(_ text: SourceText, source: CodeSource, subjectKeyword: Int, limits: ExtractionLimits) {
        self.text = text
        self.source = source
        self.subjectKeyword = subjectKeyword
        let excluded = ExcludedSpans.find(in: text.scalars)
        tokens = CodeTokenizer(text.scalars, excluded: excluded).tokens(maximum: limits.maximumCandidates)
        // The labels outside URLs and addresses, both lists sorted: one walk.
        var kept: [CodeLabel] = []
        var span = 0
        for label in CodeLabelFinder.labels(in: text.scalars) {
            while span < excluded.count, excluded[span].upperBound <= label.range.lowerBound { span += 1 }
            if span < excluded.count, excluded[span].overlaps(label.range) { continue }
            kept.append(label)
        }
        labels = kept
        var starts = [0]
        for (index, scalar) in text.scalars.enumerated() where scalar == "\n" { starts.append(index + 1) }
        lineStarts = starts
        meetingLines = Set(
            labels.filter { $0.meaning == .meeting }.map { Self.line(of: $0.range.lowerBound, in: starts) })
        promotionLines = Set(
            labels.filter { $0.meaning == .promotion }.map { Self.line(of: $0.range.lowerBound, in: starts) })
    }

    /// The lines that name a meeting, and those that sell.
    private let meetingLines: Set<Int>
    private let promotionLines: Set<Int>

    /// The index of the first label that starts at or after `position` (the count when none does).
    private func firstLabel(startingAtOrAfter position: Int) -> Int {
        var low = 0
        var high = labels.count
        while low < high {
            let middle = (low + high) / 2
            if labels[middle].range.lowerBound < position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The weight of the source's best code or act word (for the subject): 0 when it has none, or when it sells or
    /// names a meeting (`Use code THANKS24 for 15% off`).
    var bestKeyword: Int {
        guard meetingLines.isEmpty, promotionLines.isEmpty else { return 0 }
        return labels.map { $0.weight >= 35 ? $0.weight : 0 }.max() ?? 0
    }

    /// The tokens that are codes, in order of position.
    func codes() -> [Scored] {
        var refused = Array(repeating: false, count: tokens.count)
        var found: [Scored] = []
        for (index, token) in tokens.enumerated() {
            guard token.isCandidate else {
                refused[index] = true
                continue
            }
            if let scored = weigh(index, refused: refused) {
                if scored.score >= MessageExtraction.minimumScore { found.append(scored) }
            } else {
                refused[index] = true
            }
        }
        return found
    }

    private func line(of position: Int) -> Int { Self.line(of: position, in: lineStarts) }

    private static func line(of position: Int, in lineStarts: [Int]) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    private func lineEnd(_ line: Int) -> Int {
        line + 1 < lineStarts.count ? lineStarts[line + 1] - 1 : text.scalars.count
    }

    /// The token's score and reasons, or nil when it is refused.
    private func weigh(_ index: Int, refused: [Bool]) -> Scored? {
        let token = tokens[index]
        let line = line(of: token.range.lowerBound)
        let start = lineStarts[line]
        let end = lineEnd(self.line(of: token.range.upperBound - 1))
        let lastLine = self.line(of: token.range.upperBound - 1)
        if (max(0, line - 2)...lastLine).contains(where: meetingLines.contains)
            || (max(0, line - 1)...lastLine).contains(where: promotionLines.contains)
        {
            return nil
        }
        // Before, on the line.
        var before = 0
        var beforeDistance = Int.max
        var crossedNumber = false
        // Labels do not overlap tokens, so the last one starting before the token ends before it.
        let firstAfter = firstLabel(startingAtOrAfter: token.range.lowerBound)
        var labelIndex: Int? = firstAfter > 0 ? firstAfter - 1 : nil
        var tokenIndex = index - 1
        while true {
            let label = labelIndex.map { labels[$0] }
            let previous = tokenIndex >= 0 ? tokens[tokenIndex] : nil
            let labelFirst =
                label.map { label in previous.map { label.range.lowerBound > $0.range.lowerBound } ?? true } ?? false
            if labelFirst, let label, let current = labelIndex {
                guard label.range.upperBound > start, token.range.lowerBound - label.range.upperBound <= 80 else {
                    break
                }
                if label.isPositive {
                    if label.weight > before {
                        before = label.weight
                        beforeDistance = token.range.lowerBound - label.range.upperBound
                    }
                } else if !crossedNumber {
                    if before == 0 { return nil }
                    break
                } else if before > 0 {
                    break
                }
                labelIndex = current > 0 ? current - 1 : nil
            } else if let previous {
                guard previous.range.upperBound > start else { break }
                if previous.takesLabel && !refused[tokenIndex] { break }
                crossedNumber = crossedNumber || previous.takesLabel
                tokenIndex -= 1
            } else {
                break
            }
        }
        // After, on the line: the best code or act word up to the first word of something else; that word names this
        // token unless a number follows it closely (`482913 (order number 99999)` names 99999).
        var after = 0
        let nextToken = index + 1 < tokens.count ? tokens[index + 1] : nil
        var labelAfter = firstLabel(startingAtOrAfter: token.range.upperBound)
        while labelAfter < labels.count {
            let label = labels[labelAfter]
            let distance = label.range.lowerBound - token.range.upperBound
            guard label.range.lowerBound < end, distance <= 40 else { break }
            if let nextToken, nextToken.takesLabel, nextToken.range.lowerBound < label.range.lowerBound { break }
            if label.isPositive {
                after = max(after, label.weight)
            } else {
                let claimed =
                    nextToken.map {
                        $0.takesLabel && $0.range.lowerBound >= label.range.upperBound
                            && $0.range.lowerBound - label.range.upperBound <= 20 && $0.range.lowerBound < end
                    } ?? false
                if !claimed, after == 0, distance <= 25, before == 0 || beforeDistance > distance { return nil }
                break
            }
            labelAfter += 1
        }
        let lineText = text.scalars[start..<end]
        let leading = lineText[start..<token.range.lowerBound]
        let trailing = lineText[token.range.upperBound..<end]
        let nothingBefore = !leading.contains(where: Self.isWordScalar)
        let alone = nothingBefore && !trailing.contains(where: Self.isWordScalar)
        let leads =
            nothingBefore
            && (trailing.first(where: { !$0.isWhitespaceScalar }).map { "(-–—|,.:;".unicodeScalars.contains($0) }
                ?? true)
        let emphasized = source == .html && text.emphasized[token.range.lowerBound]
        // Above, when the token starts its line or stands out.
        var above = 0
        if before == 0, after == 0, leads || emphasized {
            switch labelAbove(line: line, tokenIndex: index, refused: refused) {
            case .refused: return nil
            case .weight(let weight): above = weight
            }
        }
        if token.yearLike,
            !(before == 60 && nothingButCopulas(beforeGap(token.range.lowerBound, distance: beforeDistance)))
        {
            return nil
        }
        if !token.numeric, max(before, after, above) < 60 { return nil }
        var reasons: [CodeReason] = []
        var score = 0
        var keyword = 0
        if before > 0 {
            keyword = before - (beforeDistance > 40 ? 10 : 0)
            reasons.append(.keywordBefore)
        }
        if after > 0 {
            keyword = keyword > 0 ? max(keyword, after - 5) + 15 : after - 5
            reasons.append(.keywordAfter)
        }
        if above > 0 {
            // A code word above names a code; an act word above (`Sign up today!`) only hints at one.
            keyword = max(keyword, above - (above == 60 ? 10 : 20))
            reasons.append(.keywordAbove)
        }
        score += keyword
        if alone {
            score += 15
            reasons.append(.aloneOnLine)
        }
        if emphasized {
            score += 15
            reasons.append(.emphasized)
        }
        if subjectKeyword == 60, source != .subject, alone || emphasized {
            score += 30
            reasons.append(.subjectKeyword)
        }
        if token.numeric, token.value.unicodeScalars.filter(CodeTokenizer.isDigit).count == 6 {
            score += 5
            reasons.append(.usualLength)
        }
        // Rule 4: a code word names it, or a word on its own line does; an act word above alone (`Sign in to see
        // your deals` over a newsletter's bold 482913) never makes a code, whatever its position adds.
        let namedByCodeWord = max(before, after, above) == 60 || reasons.contains(.subjectKeyword)
        if !namedByCodeWord, before == 0, after == 0 { score = min(score, MessageExtraction.minimumScore - 1) }
        return Scored(value: token.value, score: score, reasons: reasons, position: token.range.lowerBound)
    }

    private enum Above {
        case refused
        case weight(Int)
    }

    /// The label on the (at most three non-empty) lines above the token's: the nearest label going back names it
    /// unless a token that could take it comes first.
    private func labelAbove(line: Int, tokenIndex: Int, refused: [Bool]) -> Above {
        guard line > 0 else { return .weight(0) }
        let token = tokens[tokenIndex]
        var firstLine = line
        var nonEmpty = 0
        while firstLine > 0, nonEmpty < 3 {
            firstLine -= 1
            let range = lineStarts[firstLine]..<lineEnd(firstLine)
            if text.scalars[range].contains(where: Self.isWordScalar) { nonEmpty += 1 }
        }
        let windowStart = max(lineStarts[firstLine], token.range.lowerBound - 300)
        let lineStart = lineStarts[line]
        var nearestToken: CodeToken?
        var previous = tokenIndex - 1
        while previous >= 0, tokens[previous].range.lowerBound >= windowStart {
            if tokens[previous].takesLabel && !refused[previous] {
                nearestToken = tokens[previous]
                break
            }
            previous -= 1
        }
        var best = 0
        var refusedBy = false
        var labelLine: Int?
        for label in labels[..<firstLabel(startingAtOrAfter: lineStart)].reversed() {
            guard label.range.lowerBound >= windowStart else { break }
            if let nearestToken, nearestToken.range.lowerBound > label.range.lowerBound { break }
            let current = self.line(of: label.range.lowerBound)
            if let labelLine, current != labelLine { break }
            labelLine = current
            if label.isPositive {
                best = max(best, label.weight)
            } else if best == 0 {
                refusedBy = true
            }
        }
        // The nearest line with a label names the token: by a code word on it, whatever else it says (`Use this
        // verification code to sign in to Paper Street:`); else by its nearest label.
        if best == 60 || !refusedBy { return .weight(best) }
        return .refused
    }

    private func beforeGap(_ position: Int, distance: Int) -> String {
        guard distance <= 16 else { return "-" }
        return String(scalars: text.scalars[(position - distance)..<position]).lowercased()
    }

    /// Whether `gap` holds nothing but punctuation and the verbs that join a label to its value (`is`, `lautet`).
    private func nothingButCopulas(_ gap: String) -> Bool {
        gap.split { !$0.isLetter }.allSatisfy { Self.copulas.contains(String($0)) }
    }

    private static let copulas: Set<String> = ["is", "es", "est", "ist", "lautet", "é", "è", "será", "sera", "was"]

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isAlphabeticScalar || CodeTokenizer.isDigit(scalar)
    }
}
