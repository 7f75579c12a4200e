import MailDoor

/// Reads `FETCH`'s data items (RFC 9051 §6.4.5): one item, a macro, or a parenthesized list.
enum IMAPFetchParser {
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> [IMAPFetchAttribute] {
        if reader.peek() == ASCII.openParen {
            try reader.open()
            var attributes: [IMAPFetchAttribute] = []
            repeat { attributes.append(try attribute(&reader)) } while reader.take(ASCII.space)
            try reader.close()
            return attributes
        }
        if reader.take(word: "ALL") { return IMAPFetchAttribute.all }
        if reader.take(word: "FAST") { return IMAPFetchAttribute.fast }
        if reader.take(word: "FULL") { return IMAPFetchAttribute.full }
        return [try attribute(&reader)]
    }

    /// One `fetch-att`. Longer names are tried before their prefixes (`RFC822.SIZE` before `RFC822`).
    static func attribute(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPFetchAttribute {
        if reader.take(word: "ENVELOPE") { return .envelope }
        if reader.take(word: "FLAGS") { return .flags }
        if reader.take(word: "INTERNALDATE") { return .internalDate }
        if reader.take(word: "UID") { return .uid }
        if reader.take(word: "RFC822.SIZE") { return .rfc822Size }
        if reader.take(word: "RFC822.HEADER") { return .rfc822Header }
        if reader.take(word: "RFC822.TEXT") { return .rfc822Text }
        if reader.take(word: "RFC822") { return .rfc822 }
        if reader.take(word: "BODYSTRUCTURE") { return .bodyStructure(extensible: true) }
        if reader.take(prefix: "BINARY.SIZE[") { return .binarySize(part: try binaryPart(&reader)) }
        for (name, peek) in [("BINARY.PEEK[", true), ("BINARY[", false)] where reader.take(prefix: name) {
            let part = try binaryPart(&reader)
            return .binary(part: part, partial: try partial(&reader), peek: peek)
        }
        for (name, peek) in [("BODY.PEEK[", true), ("BODY[", false)] where reader.take(prefix: name) {
            let section = try self.section(&reader)
            return .body(section, partial: try partial(&reader), peek: peek)
        }
        if reader.take(word: "BODY") { return .bodyStructure(extensible: false) }
        throw .syntax("a FETCH data item")
    }

    /// `section-binary`'s inside: a part number or nothing, then `]`.
    private static func binaryPart(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> [Int] {
        var part: [Int] = []
        if reader.peek() != UInt8(ascii: "]") {
            repeat { part.append(Int(try reader.nonZeroNumber())) } while reader.take(UInt8(ascii: "."))
        }
        try reader.expect(UInt8(ascii: "]"), "]")
        return part
    }

    /// `section-spec` after `[`, with its `]`.
    private static func section(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSection {
        var section = IMAPSection()
        while let byte = reader.peek(), ASCII.isDigit(byte) {
            section.part.append(Int(try reader.nonZeroNumber()))
            guard reader.take(UInt8(ascii: ".")) else { break }
        }
        let afterDot = !section.part.isEmpty && reader.bytes[reader.index - 1] == UInt8(ascii: ".")
        if reader.peek() != UInt8(ascii: "]") || afterDot {
            if reader.take(word: "HEADER.FIELDS.NOT") {
                section.text = .headerFieldsNot(try headerList(&reader))
            } else if reader.take(word: "HEADER.FIELDS") {
                section.text = .headerFields(try headerList(&reader))
            } else if reader.take(word: "HEADER") {
                section.text = .header
            } else if reader.take(word: "TEXT") {
                section.text = .text
            } else if !section.part.isEmpty && reader.take(word: "MIME") {
                section.text = .mime
            } else {
                throw .syntax("a section: HEADER, HEADER.FIELDS, TEXT or MIME")
            }
        }
        try reader.expect(UInt8(ascii: "]"), "]")
        return section
    }

    /// `SP header-list`: `(` field names `)`, in upper case.
    private static func headerList(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> [String] {
        try reader.space()
        try reader.open()
        var names: [String] = []
        repeat { names.append(try reader.astringText().uppercased()) } while reader.take(ASCII.space)
        try reader.close()
        return names
    }

    /// `<start.length>`, when given.
    private static func partial(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPPartial? {
        guard reader.take(UInt8(ascii: "<")) else { return nil }
        let start = try reader.number64()
        try reader.expect(UInt8(ascii: "."), "<start.length>")
        let length = try reader.number64()
        guard length > 0 else { throw .syntax("a non-zero length") }
        try reader.expect(UInt8(ascii: ">"), ">")
        return IMAPPartial(start: start, length: length)
    }
}
