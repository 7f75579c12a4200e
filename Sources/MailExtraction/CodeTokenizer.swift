/// Finds the code-shaped tokens of a source (issue 85), by small scanners over its scalars, never a regular
/// expression. The rules, in order:
///
/// 1. A *run* is a maximal stretch of ASCII letters and digits, with single hyphens between them (`ABC-123`). A run
///    without a digit is a word, not a token; a run with a lower-case letter is an identifier, not a code.
/// 2. A run is code-shaped when it has 4–10 letters and digits and, when it has letters, a digit; when grouped by
///    hyphens, every group has at least two characters, groups of digits alone have one length (`123-456`, not the
///    date `2024-05-01` or the phone number `555-0199`), and there are two groups, or three of at most three
///    characters. A word of four letters or more and a number of two digits or more (`SPRING24`) is a promotion's
///    code, not code-shaped. A short letter prefix before digits (`G-123456`, `FB-12345`) leaves the digits as the token.
/// 3. Runs of digits separated by one space (or a no-break or thin space) form a chain: two groups of one length
///    of 2–5 digits, or three of at most three, are one token (`123 456`); any other chain of three groups or more,
///    or of two groups of three digits or more with seven digits in all, is a phone, card or tracking number, and
///    none of its runs is a code.
/// 4. A token is bound, so not a code, when a side of it touches something larger: `#` (a colour, an order number),
///    a mask (`*** *** 4821`, `•••• 4821`, `XXXX-4821`: the end of a hidden card or phone number),
///    a currency sign or code, `+`, `@`, `/`, `\`, `=`, `&`, `?`, `%` or `~` before it; a decimal point or comma
///    between it and a digit or letter (`12.50`, `v1.2345`), a colon after a digit (`10:30`), a decimal point, comma
///    or colon before a digit or letter; `%`, `@`, `°` or `/` after it; a letter
///    of a word around it (`Bestätigungs1234`), except a Chinese, Japanese or Korean one; a unit or currency word
///    after it (`1500 points`, `2500 EUR`); a date or count character after it (`2024年`); a two-letter state code
///    before five digits (`CA 94043`); or inside a URL or an email address.
/// 5. Four digits from 1900 to 2099 are marked year-like.
/// 6. A code set one character a cell or a box (4–8 lines of one digit or capital each, with a digit; or one line of
///    4–8 such characters separated by single spaces) is one token.
struct CodeTokenizer {
    private let scalars: [Unicode.Scalar]
    private let excluded: [Range<Int>]

    /// - Parameter excluded: the ranges of URLs and email addresses in `scalars`, sorted.
    init(_ scalars: [Unicode.Scalar], excluded: [Range<Int>]) {
        self.scalars = scalars
        self.excluded = excluded
    }

    /// The tokens in order, at most `maximum`.
    func tokens(maximum: Int) -> [CodeToken] {
        var runs: [CodeToken] = []
        var index = 0
        var exclusion = 0
        let count = scalars.count
        while index < count, runs.count < maximum {
            guard Self.isAlphanumeric(scalars[index]) else {
                index += 1
                continue
            }
            var end = index + 1
            while end < count {
                if Self.isAlphanumeric(scalars[end]) {
                    end += 1
                } else if scalars[end] == "-", end + 1 < count, Self.isAlphanumeric(scalars[end + 1]) {
                    end += 1
                } else {
                    break
                }
            }
            while exclusion < excluded.count, excluded[exclusion].upperBound <= index { exclusion += 1 }
            let inside = exclusion < excluded.count && excluded[exclusion].lowerBound < end
            if !inside, let token = token(index..<end) { runs.append(token) }
            index = end
        }
        let spelled = spelledOut()
        guard !spelled.isEmpty else { return chained(runs) }
        return chained((runs + spelled).sorted { $0.range.lowerBound < $1.range.lowerBound })
    }

    /// Rule 6: the codes written one character a line (`<td>4</td><td>8</td>...`) or spaced out on a line of their
    /// own (`4 8 2 9 1 3`).
    private func spelledOut() -> [CodeToken] {
        var found: [CodeToken] = []
        var cells: [Int] = []
        func flush() {
            if (4...8).contains(cells.count), cells.contains(where: { Self.isDigit(scalars[$0]) }) {
                found.append(spelled(cells))
            }
            cells.removeAll()
        }
        var lineStart = 0
        while lineStart < scalars.count {
            var lineEnd = lineStart
            while lineEnd < scalars.count, scalars[lineEnd] != "\n" { lineEnd += 1 }
            let characters = (lineStart..<lineEnd).filter { !scalars[$0].isWhitespaceScalar }
            let single = characters.allSatisfy { Self.isDigit(scalars[$0]) || Self.isUpper(scalars[$0]) }
            if characters.count == 1, single {
                cells.append(characters[0])
            } else {
                flush()
                if (4...8).contains(characters.count), single,
                    zip(characters, characters.dropFirst()).allSatisfy({ $1 - $0 == 2 }),
                    characters.contains(where: { Self.isDigit(scalars[$0]) })
                {
                    found.append(spelled(characters))
                }
            }
            lineStart = lineEnd + 1
        }
        flush()
        return found
    }

    private func spelled(_ positions: [Int]) -> CodeToken {
        let value = String(scalars: positions.map { scalars[$0] })
        return CodeToken(
            shape: .candidate, range: positions[0]..<positions[positions.count - 1] + 1, value: value,
            numeric: value.unicodeScalars.allSatisfy(Self.isDigit), yearLike: false, boundLeft: false, boundRight: false
        )
    }

    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return false
        }
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { (0x30...0x39).contains(scalar.value) }
    static func isUpper(_ scalar: Unicode.Scalar) -> Bool { (0x41...0x5A).contains(scalar.value) }
    static func isLower(_ scalar: Unicode.Scalar) -> Bool { (0x61...0x7A).contains(scalar.value) }

    /// A scalar of a script written without spaces between words (Han, kana, Hangul, their punctuation).
    static func isEastAsian(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x11FF, 0x2E80...0x2FFF, 0x3000...0x303F, 0x3040...0x30FF, 0x3130...0x318F, 0x3400...0x4DBF,
            0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFF00...0xFFEF:
            return true
        default: return false
        }
    }

    /// The token of the run at `range`, or nil when the run is a word or an identifier.
    private func token(_ range: Range<Int>) -> CodeToken? {
        let run = scalars[range]
        guard run.contains(where: Self.isDigit) else { return nil }
        if run.contains(where: Self.isLower) { return nil }
        var groups: [Range<Int>] = []
        var start = range.lowerBound
        for index in range where scalars[index] == "-" {
            groups.append(start..<index)
            start = index + 1
        }
        groups.append(start..<range.upperBound)
        var shapeRange = range
        if groups.count == 2, groups[0].count <= 3, scalars[groups[0]].allSatisfy(Self.isUpper),
            (4...10).contains(groups[1].count), scalars[groups[1]].allSatisfy(Self.isDigit)
        {
            shapeRange = groups[1]
            groups = [groups[1]]
        }
        let length = groups.reduce(0) { $0 + $1.count }
        let numeric = scalars[shapeRange].allSatisfy { Self.isDigit($0) || $0 == "-" }
        var shaped = (4...10).contains(length)
        if groups.count > 1 {
            let lengths = groups.map(\.count)
            let even = lengths.allSatisfy { $0 == lengths[0] }
            shaped =
                shaped && lengths.allSatisfy { $0 >= 2 } && (numeric ? even : lengths.allSatisfy { $0 <= 5 })
                && (groups.count == 2 || (groups.count == 3 && lengths.allSatisfy { $0 <= 3 }))
        }
        if !numeric { shaped = shaped && scalars[shapeRange].contains { Self.isUpper($0) } }
        // `SPRING24`, `WELCOME10`: a word and a number, a promotion's code; a one-time code's letters are drawn at
        // random, not spelled.
        if groups.count == 1, !numeric, Self.spelledWord(scalars[shapeRange]) { shaped = false }
        // `XXXX-4821`: the visible end of a masked card or phone number.
        if groups.count > 1, groups.contains(where: { group in scalars[group].allSatisfy { $0 == "X" } }) {
            shaped = false
        }
        let left = boundLeft(range.lowerBound)
        let right = boundRight(range.upperBound)
        let shape: CodeToken.Shape
        if shaped {
            shape = .candidate
        } else if length >= 4 || (numeric && (left || right)) {
            // A short number that is part of an amount, a time or a date takes its label as a long one does
            // (`transaction of INR 5,000.00`).
            shape = .number
        } else if numeric, groups.count == 1, length >= 2 {
            shape = .fragment
        } else {
            return nil
        }
        let value = String(scalars: scalars[shapeRange])
        let year = numeric && length == 4 && groups.count == 1 && (1900...2099).contains(Int(value) ?? 0)
        return CodeToken(
            shape: shape, range: range, value: value, numeric: numeric, yearLike: year, boundLeft: left,
            boundRight: right)
    }

    /// Whether `run` is a word of four letters or more with a vowel, then a number of two digits or more
    /// (`SPRING24`, `SAVE20`, not `KYJR7`).
    private static func spelledWord(_ run: ArraySlice<Unicode.Scalar>) -> Bool {
        let letters = run.prefix(while: isUpper)
        let number = run.dropFirst(letters.count)
        guard letters.count >= 4, number.count >= 2, number.allSatisfy(isDigit) else { return false }
        return letters.contains { "AEIOU".unicodeScalars.contains($0) }
    }

    private func at(_ index: Int) -> Unicode.Scalar? {
        index >= 0 && index < scalars.count ? scalars[index] : nil
    }

    private static let signsBefore = Set("#$€£¥₹¢₩₽₺₦₱+@/\\=&?%~^".unicodeScalars)
    private static let signsAfter = Set("%@°/€$£¥₹₩元円원".unicodeScalars)
    /// Written right after a number: a year, a month, a day, an hour, a count, money, in Chinese, Japanese, Korean.
    private static let countsAfter = Set("年月日時时分秒點点元円원개件号號位名人回次個个".unicodeScalars)
    private static let spaces = Set(" \u{A0}\u{2009}\u{202F}".unicodeScalars)

    private func boundLeft(_ start: Int) -> Bool {
        guard let before = at(start - 1) else { return false }
        if maskedBefore(start), !emphasisMarks(start) { return true }
        if Self.signsBefore.contains(before) { return true }
        // A decimal or a domain (`12.50`, `v1.2345`, `example.123`); a time (`10:30`), but not a label (`code:4821`).
        if ".,".unicodeScalars.contains(before), let second = at(start - 2), Self.isAlphanumeric(second) { return true }
        if before == ":", let second = at(start - 2), Self.isDigit(second) { return true }
        if before.isAlphabeticScalar, !Self.isEastAsian(before) { return true }
        if Self.spaces.contains(before) {
            if let sign = at(start - 2), Self.signsBefore.contains(sign), sign != "/", sign != "=", sign != "&" {
                return true
            }
            let word = wordBefore(start - 1)
            if Self.currencyWords.contains(word.lowercased()) { return true }
            if word.count == 2, word.unicodeScalars.allSatisfy(Self.isUpper), start + 5 <= scalars.count,
                (start..<start + 5).allSatisfy({ Self.isDigit(scalars[$0]) }), word != "ID"
            {
                return true
            }
        }
        return false
    }

    private func boundRight(_ end: Int) -> Bool {
        guard let after = at(end) else { return false }
        if Self.signsAfter.contains(after) || Self.countsAfter.contains(after) { return true }
        if ".,:".unicodeScalars.contains(after), let second = at(end + 1), Self.isAlphanumeric(second) { return true }
        if after.isAlphabeticScalar, !Self.isEastAsian(after) { return true }
        if Self.spaces.contains(after) {
            if let sign = at(end + 1), Self.signsAfter.contains(sign), sign != "/" { return true }
            let word = wordAfter(end + 1).lowercased()
            if Self.currencyWords.contains(word) || Self.unitWords.contains(word) { return true }
        }
        return false
    }

    /// Whether a mask stands right before `start`, past spaces and hyphens: `*** *** 4821`, `•••• 4821`, `xxx-4821`.
    private func maskedBefore(_ start: Int) -> Bool {
        var index = start - 1
        while index >= 0, start - index <= 3,
            scalars[index] == " " || scalars[index] == "-" || scalars[index] == "\u{A0}"
        {
            index -= 1
        }
        guard index >= 0 else { return false }
        if Self.masks.contains(scalars[index]) { return true }
        // Letters x as a mask: a word of two or more of them alone (`xxx-xxx-4821`, not `Xbox 4821`).
        var run = index
        while run >= 0, scalars[run] == "x" || scalars[run] == "X" { run -= 1 }
        return index - run >= 2 && (run < 0 || !scalars[run].isAlphabeticScalar)
    }

    private static let masks = Set("*•●·∙…".unicodeScalars)

    /// Whether the token at `start` is wrapped in asterisks (`**482913**`, plain text's bold), not masked.
    private func emphasisMarks(_ start: Int) -> Bool {
        guard start > 0, scalars[start - 1] == "*" else { return false }
        var end = start
        while end < scalars.count, Self.isAlphanumeric(scalars[end]) || scalars[end] == "-" { end += 1 }
        return end < scalars.count && scalars[end] == "*"
    }

    /// The ASCII letters right before `end` (exclusive), an abbreviation's period aside (`Rs.`).
    private func wordBefore(_ end: Int) -> String {
        let end = end > 0 && scalars[end - 1] == "." ? end - 1 : end
        var start = end
        while start > 0, start > end - 12, Self.isAlphanumeric(scalars[start - 1]) || scalars[start - 1] == "$" {
            start -= 1
        }
        return String(scalars: scalars[start..<end])
    }

    private func wordAfter(_ start: Int) -> String {
        var end = start
        while end < scalars.count, end < start + 12, scalars[end].isAlphabeticScalar { end += 1 }
        return String(scalars: scalars[start..<end])
    }

    private static let currencyWords: Set<String> = [
        "usd", "eur", "gbp", "jpy", "cny", "rmb", "inr", "brl", "chf", "cad", "aud", "mxn", "krw", "sek", "nok", "dkk",
        "pln", "czk", "huf", "try", "zar", "sgd", "hkd", "nzd", "ars", "clp", "cop", "pen", "r$", "us$", "rs",
        "dollars", "dollar", "euros", "euro", "reais", "real", "pesos", "yen", "yuan", "won", "rupees", "francs",
        "pounds", "kr", "zł",
    ]
    private static let unitWords: Set<String> = [
        "points", "pts", "pt", "miles", "mi", "km", "kg", "g", "lb", "lbs", "steps", "items", "views", "followers",
        "members", "users", "people", "words", "calories", "kcal", "mb", "gb", "tb", "kb", "px", "dpi", "mah", "mm",
        "cm", "m", "ft", "sq", "hours", "hrs", "minutes", "mins", "seconds", "secs", "days", "weeks", "months",
        "years", "stars", "likes", "subscribers", "credits", "coins", "tokens", "puntos", "pontos", "punkte",
        "millas", "milhas", "meilen", "euros", "horas", "minutos", "días", "dias", "stunden", "minuten", "tage",
        "heures", "jours", "ans", "años", "anos", "jahre",
    ]

    /// Rule 3: runs separated by one space made into one grouped token, or marked as the parts of a longer number.
    private func chained(_ runs: [CodeToken]) -> [CodeToken] {
        var output: [CodeToken] = []
        var index = 0
        while index < runs.count {
            var end = index + 1
            while end < runs.count, joinable(runs[end - 1], runs[end]) { end += 1 }
            let chain = Array(runs[index..<end])
            index = end
            guard chain.count > 1 else {
                output.append(chain[0])
                continue
            }
            let lengths = chain.map { $0.range.count }
            let total = lengths.reduce(0, +)
            let even = lengths.allSatisfy { $0 == lengths[0] }
            if even, (2...5).contains(lengths[0]), (4...10).contains(total),
                chain.count == 2 || (chain.count == 3 && lengths[0] <= 3)
            {
                let first = chain[0]
                let last = chain[chain.count - 1]
                output.append(
                    CodeToken(
                        shape: .candidate, range: first.range.lowerBound..<last.range.upperBound,
                        value: chain.map(\.value).joined(separator: " "), numeric: true, yearLike: false,
                        boundLeft: first.boundLeft, boundRight: last.boundRight))
            } else if chain.count >= 3 || (lengths.allSatisfy { $0 >= 3 } && total >= 7) {
                output.append(
                    contentsOf: chain.map { run in
                        var run = run
                        run.shape = .number
                        return run
                    })
            } else {
                output.append(contentsOf: chain)
            }
        }
        return output.filter { $0.shape != .fragment }
    }

    /// Whether `second` continues `first`'s chain: both plain digit runs, one space between.
    private func joinable(_ first: CodeToken, _ second: CodeToken) -> Bool {
        first.numeric && second.numeric && second.range.lowerBound == first.range.upperBound + 1
            && Self.spaces.contains(scalars[first.range.upperBound])
            && !scalars[first.range].contains("-") && !scalars[second.range].contains("-")
    }
}
