import Foundation

/// A domain as Postern compares it: its IDNA form (RFC 5890), ASCII and lower-cased, so that one domain has one
/// spelling whichever way it was typed, and no other domain shares it.
///
/// The rules, in order:
/// 1. The text is split at its dots; no label may be empty.
/// 2. An ASCII label is lower-cased by ASCII rules (`A`-`Z` only) and then has only `a`-`z`, `0`-`9` and `-`
///    (RFC 5321's `sub-domain`).
/// 3. A label with any other character is put in Unicode's NFC (RFC 5891 section 5.2) and then must be a U-label
///    IDNA2008 could accept: letters, marks and digits only (ASCII: `a`-`z`, `0`-`9`, `-`), no character that
///    NFKC case folding would change (RFC 5892's Unstable category: KELVIN SIGN `U+212A`, LONG S `U+017F`, `U+0130`,
///    fullwidth forms, capitals, default-ignorables), and no mark first (section 4.2.3.2). It is then written as its
///    A-label, `xn--` and its Punycode (RFC 3492). No mapping (UTS 46's) is done: a character that would need one is
///    refused, so a look-alike is never folded onto another domain, an ASCII one least of all.
/// 4. Each label is at most 63 bytes and the whole at most 253 (RFC 1035).
public struct EmailDomain: Sendable, Hashable, CustomStringConvertible {
    /// The domain in IDNA's ASCII form, lower-cased: `example.org`, `xn--bcher-kva.example`.
    public let name: String

    /// `name`.
    public var description: String { name }

    /// `text` in IDNA's ASCII form, lower-cased; nil when a rule above refuses it.
    public init?(_ text: some StringProtocol) {
        var labels: [String] = []
        for label in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard let converted = Self.label(label), !converted.isEmpty, converted.utf8.count <= 63 else { return nil }
            labels.append(converted)
        }
        let name = labels.joined(separator: ".")
        guard name.utf8.count <= 253 else { return nil }
        self.name = name
    }

    /// One label by rules 2 and 3; nil when it may not be a label.
    private static func label(_ label: some StringProtocol) -> String? {
        let lowered = ASCIICase.lowered(label)
        if lowered.unicodeScalars.allSatisfy(\.isASCII) {
            return lowered.unicodeScalars.allSatisfy(isLabelScalar) ? lowered : nil
        }
        let composed = lowered.precomposedStringWithCanonicalMapping.unicodeScalars
        guard let first = composed.first, !isMark(first), composed.allSatisfy(isLabelScalar),
            let encoded = Punycode.encode(Array(composed))
        else { return nil }
        return "xn--" + encoded
    }

    /// Rule 3's characters.
    private static func isLabelScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
        }
        guard !scalar.properties.changesWhenNFKCCaseFolded else { return false }
        switch scalar.properties.generalCategory {
        case .lowercaseLetter, .otherLetter, .modifierLetter, .nonspacingMark, .spacingMark, .enclosingMark,
            .decimalNumber:
            return true
        default:
            return false
        }
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}

extension EmailDomain {
    /// The form `text` is compared in: its ``name`` when it is a domain, else `text` with ASCII case folded, which no
    /// domain's ``name`` equals.
    public static func key(_ text: some StringProtocol) -> String {
        EmailDomain(text)?.name ?? ASCIICase.lowered(text)
    }
}
