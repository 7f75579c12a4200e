/// What RFC 8621 §4.1.4's `parseStructure` reads of a part: its type, disposition and name, and a multipart's parts.
/// JMAP's ``EmailBodyPart`` is one, and so is the part ``MIMEParser`` walks at delivery: the one algorithm picks the
/// bodies and attachments of both, so that what a message is stored with and what JMAP shows of it agree.
protocol StructuredPart {
    /// `type/subtype`, lower-cased.
    var type: String { get }
    /// Content-Disposition's value, lower-cased; nil without one.
    var disposition: String? { get }
    /// Content-Disposition's `filename`, else Content-Type's `name`.
    var name: String? { get }
    /// Whether the part is a `multipart/*` whose parts are ``subParts`` (one without a boundary may be a leaf).
    var isMultipart: Bool { get }
    var subParts: [Self] { get }
}

extension EmailBodyPart: StructuredPart {}

/// RFC 8621 §4.1.4's `parseStructure`, step for step: which leaves of a message are its text body, its HTML body and
/// its attachments, in order. A leaf may be in more than one list (a text part of a `multipart/mixed` is both text
/// and HTML; an inline image beside only one of them is both a body part and an attachment) or in none (a text part
/// after a sibling of the other type inside an alternative).
struct BodyPartLists<Part: StructuredPart> {
    private(set) var text: [Part] = []
    private(set) var html: [Part] = []
    private(set) var attachments: [Part] = []

    /// The lists of the message whose top part is `root`.
    init(root: Part) {
        parse([root], multipartType: "mixed", inAlternative: false, text: true, html: true)
    }

    /// `image/*`, `audio/*` and `video/*`: what a client shows in a body beside its text.
    static func isInlineMediaType(_ type: String) -> Bool {
        type.hasPrefix("image/") || type.hasPrefix("audio/") || type.hasPrefix("video/")
    }

    /// One call of the pseudo-code; `textOn` and `htmlOn` say whether that list is still taken (its `null`).
    private mutating func parse(
        _ parts: [Part], multipartType: String, inAlternative: Bool, text textOn: Bool, html htmlOn: Bool
    ) {
        var textOn = textOn
        var htmlOn = htmlOn
        let textLength = textOn ? text.count : -1
        let htmlLength = htmlOn ? html.count : -1
        for (index, part) in parts.enumerated() {
            let isInline =
                part.disposition != "attachment"
                && (part.type == "text/plain" || part.type == "text/html" || Self.isInlineMediaType(part.type))
                && (index == 0
                    || (multipartType != "related" && (Self.isInlineMediaType(part.type) || part.name == nil)))
            if part.isMultipart {
                let subType = String(part.type.dropFirst("multipart/".count))
                parse(
                    part.subParts, multipartType: subType, inAlternative: inAlternative || subType == "alternative",
                    text: textOn, html: htmlOn)
            } else if isInline {
                if multipartType == "alternative" {
                    switch part.type {
                    case "text/plain": text.append(part)
                    case "text/html": html.append(part)
                    default: attachments.append(part)
                    }
                    continue
                } else if inAlternative {
                    if part.type == "text/plain" { htmlOn = false }
                    if part.type == "text/html" { textOn = false }
                }
                if textOn { text.append(part) }
                if htmlOn { html.append(part) }
                if (!textOn || !htmlOn) && Self.isInlineMediaType(part.type) { attachments.append(part) }
            } else {
                attachments.append(part)
            }
        }
        if multipartType == "alternative" && textOn && htmlOn {
            // Found an HTML part only: it is the text too.
            if textLength == text.count && htmlLength != html.count {
                text.append(contentsOf: html[htmlLength...])
            }
            // Found a plain text part only: it is the HTML too.
            if htmlLength == html.count && textLength != text.count {
                html.append(contentsOf: text[textLength...])
            }
        }
    }
}
