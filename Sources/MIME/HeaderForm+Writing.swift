import Time

extension HeaderForm {
    /// The header line (`Name: value`, folded with CRLF, without the line's own CRLF) that writes `value` in this
    /// form into field `name` (RFC 8621 §4.6, `header:{name}:as{Form}` on create): Raw as given (a space after the
    /// colon added when it has none), Text as an unstructured field, the others as ``MIMEComposer`` writes
    /// addresses, message ids and dates; URLs in angle brackets, comma separated.
    /// - Throws: ``MIMEComposerError`` for a name that is not printable ASCII, a value of the wrong kind for the
    ///   form, a Raw value that would end its field (a CR or LF not followed by white space, a control character),
    ///   an address, message id or URL that cannot be written bare, a Date that is no RFC 3339 date.
    public func line(_ name: String, _ value: HeaderValue) throws(MIMEComposerError) -> String {
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != ":" }) else {
            throw MIMEComposerError(field: "header", reason: "a field name is printable ASCII without a colon")
        }
        func wrongKind() -> MIMEComposerError {
            MIMEComposerError(field: name, reason: "not a value of the \(rawValue) form")
        }
        switch (self, value) {
        case (.raw, .text(let raw)):
            guard Self.isWritableRaw(raw) else {
                throw MIMEComposerError(field: name, reason: "a raw value holds a line break that ends the field")
            }
            return name + ":" + (raw.first == " " || raw.first == "\t" ? "" : " ") + raw
        case (.text, .text(let text)):
            return HeaderText.unstructured(name, text)
        case (.addresses, .addresses(let list)):
            var written: [String] = []
            for address in list { written.append(try MIMEComposer.address(address, field: name)) }
            return HeaderText.fold(name, written, separator: ",")
        case (.groupedAddresses, .groups(let groups)):
            var written: [String] = []
            for group in groups {
                var members: [String] = []
                for address in group.addresses { members.append(try MIMEComposer.address(address, field: name)) }
                if let groupName = group.name {
                    written.append(HeaderText.phrase(groupName) + ": " + members.joined(separator: ", ") + ";")
                } else {
                    written.append(contentsOf: members)
                }
            }
            return HeaderText.fold(name, written, separator: ",")
        case (.messageIDs, .strings(let ids)):
            var written: [String] = []
            for id in ids { written.append(try MIMEComposer.messageID(id, field: name)) }
            return HeaderText.fold(name, written, separator: "")
        case (.date, .text(let text)):
            guard let seconds = RFC3339.parse(text) else {
                throw MIMEComposerError(field: name, reason: "a date is RFC 3339 (2026-01-31T12:00:00Z)")
            }
            return name + ": " + RFC5322Date.format(seconds)
        case (.urls, .strings(let urls)):
            guard urls.allSatisfy({ url in
                url.contains(":") && !url.unicodeScalars.contains { HeaderText.isUnsafe($0) || $0 == "<" || $0 == ">" }
            }) else {
                throw MIMEComposerError(field: name, reason: "a URL is written without spaces, controls or angle brackets")
            }
            return HeaderText.fold(name, urls.map { "<\($0)>" }, separator: ",")
        default:
            throw wrongKind()
        }
    }

    /// Whether `raw` can follow `Name:` without ending the field early: no control character but tab, and each CRLF
    /// followed by white space (a fold) that holds more than white space on its line.
    static func isWritableRaw(_ raw: String) -> Bool {
        let scalars = Array(raw.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\r" {
                guard index + 2 < scalars.count, scalars[index + 1] == "\n",
                    scalars[index + 2] == " " || scalars[index + 2] == "\t"
                else { return false }
                index += 3
                continue
            }
            if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F { return false }
            index += 1
        }
        return true
    }
}
