import Testing

@testable import MIME

/// RFC 8621 §4.1.2's parsed forms of a header field and §4.1.3's `header:` property names, on known answers (the
/// values fastmail's JMAP-TestSuite checks, and the RFC's own rules).
@Suite("JMAP header forms (RFC 8621 4.1.2, 4.1.3)")
struct HeaderFormTests {
    @Test("property names: Raw by default, :as{Form} before :all, a form only where the field allows it")
    func propertyNames() {
        #expect(HeaderProperty("header:Subject") == HeaderProperty(name: "Subject", form: .raw, all: false))
        #expect(HeaderProperty("header:X-A:asDate:all") == HeaderProperty(name: "X-A", form: .date, all: true))
        #expect(HeaderProperty("header:None:all:asRaw") == nil)
        #expect(HeaderProperty("header:From:asDate") == nil)
        #expect(HeaderProperty("header:Subject:asAddresses") == nil)
        #expect(HeaderProperty("header:From:asText") == nil)
        #expect(HeaderProperty("header:List-Id:asText") != nil)
        #expect(HeaderProperty("header:X-A:asNothing") == nil)
        #expect(HeaderProperty("header:") == nil && HeaderProperty("subject") == nil)
    }

    @Test("Text: unfolded, encoded words decoded, trimmed, NFC")
    func text() {
        #expect(HeaderForm.text.read(" =?UTF-8?B?4piD?=") == .text("\u{2603}"))
        #expect(HeaderForm.text.read("  aaa\r\n bbb") == .text("aaa bbb"))
        #expect(HeaderForm.text.read(" =?UTF-8?B?4oSr?=") == .text("\u{C5}"))  // ANGSTROM SIGN, NFC
    }

    @Test("Addresses and GroupedAddresses: quoted pairs, folded names, groups and the mailboxes outside them")
    func addresses() {
        #expect(HeaderForm.addresses.read(#" "Foo \S" <f@x.net>"#) == .addresses([MailAddress(name: "Foo S", email: "f@x.net")]))
        #expect(HeaderForm.addresses.read(" \"aaa\"\r\n <a@x.net>") == .addresses([MailAddress(name: "aaa", email: "a@x.net")]))
        let group = #" A group: foo <foo@example.org>,"bar d" <bar@example.org>;, c@x.net"#
        let foo = MailAddress(name: "foo", email: "foo@example.org")
        let bar = MailAddress(name: "bar d", email: "bar@example.org")
        let c = MailAddress(name: nil, email: "c@x.net")
        #expect(HeaderForm.addresses.read(group) == .addresses([foo, bar, c]))
        #expect(HeaderForm.groupedAddresses.read(group) == .groups([
            AddressGroup(name: "A group", addresses: [foo, bar]), AddressGroup(name: nil, addresses: [c]),
        ]))
    }

    @Test("MessageIds, Date and URLs: parsed, or null when anything else is there")
    func structured() {
        #expect(HeaderForm.messageIDs.read(" <a@x>\r\n <b@y> (comment)") == .strings(["a@x", "b@y"]))
        #expect(HeaderForm.messageIDs.read(" a@x") == HeaderValue.none)
        #expect(HeaderForm.date.read(" Thu, 13 Feb 1969 23:32 -0330 (Newfoundland Time)") == .text("1969-02-13T23:32:00-03:30"))
        #expect(HeaderForm.date.read(" Mon, 18 Jun 2018 16:51:28 +0000") == .text("2018-06-18T16:51:28Z"))
        #expect(HeaderForm.date.read(" not a date") == HeaderValue.none)
        #expect(HeaderForm.urls.read(" <http://a.net>\r\n <http://b.org/x>") == .strings(["http://a.net", "http://b.org/x"]))
        #expect(HeaderForm.urls.read(" <mailto:l@x>, <http://y/ z>") == .strings(["mailto:l@x", "http://y/z"]))
        #expect(HeaderForm.urls.read(" not a url") == HeaderValue.none)
    }

    @Test("a property's value: the last field of its name, or all of them; absent, null or an empty list")
    func values() {
        let fields = [
            MailHeader(name: "Multiple", value: " 1st"), MailHeader(name: "multiple", value: " 2nd"),
            MailHeader(name: "Single", value: " one"),
        ]
        #expect(HeaderProperty("header:MULTIPLE")?.value(in: fields) == [.text(" 2nd")])
        #expect(HeaderProperty("header:Multiple:all")?.value(in: fields) == [.text(" 1st"), .text(" 2nd")])
        #expect(HeaderProperty("header:None")?.value(in: fields) == [HeaderValue.none])
        #expect(HeaderProperty("header:None:all")?.value(in: fields) == [])
    }
}
