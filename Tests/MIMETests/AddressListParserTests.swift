import Testing

@testable import MIME

/// The strict address-field reader: RFC 5322 Appendix A's examples read as the RFC says, and every field a lenient
/// reader could take two ways refused (the four `From` lines of the sender-spoofing finding among them).
@Suite("Address list parser")
struct AddressListParserTests {
    typealias A = MailAddress

    @Test("RFC 5322 A.1.1 and A.1.2: mailboxes, quoted names, lists")
    func appendixA1() throws {
        #expect(try AddressListParser.mailboxList("John Doe <jdoe@machine.example>") == [
            A(name: "John Doe", email: "jdoe@machine.example")
        ])
        #expect(try AddressListParser.mailbox("Michael Jones <mjones@machine.example>") == A(
            name: "Michael Jones", email: "mjones@machine.example"))
        #expect(try AddressListParser.mailboxList("\"Joe Q. Public\" <john.q.public@example.com>") == [
            A(name: "Joe Q. Public", email: "john.q.public@example.com")
        ])
        #expect(
            try AddressListParser.addressList("Mary Smith <mary@x.test>, jdoe@example.org, Who? <one@y.test>")
                == [
                    .mailbox(A(name: "Mary Smith", email: "mary@x.test")), .mailbox(A(email: "jdoe@example.org")),
                    .mailbox(A(name: "Who?", email: "one@y.test")),
                ])
        #expect(
            try AddressListParser.addressList("<boss@nil.test>, \"Giant; \\\"Big\\\" Box\" <sysservices@example.net>")
                == [
                    .mailbox(A(email: "boss@nil.test")),
                    .mailbox(A(name: "Giant; \"Big\" Box", email: "sysservices@example.net")),
                ])
    }

    @Test("RFC 5322 A.1.3: groups, the empty group")
    func appendixA13() throws {
        #expect(
            try AddressListParser.addressList("A Group:Ed Jones <c@a.test>,joe@where.test,John <jdoe@one.test>;") == [
                .group(
                    name: "A Group",
                    members: [
                        A(name: "Ed Jones", email: "c@a.test"), A(email: "joe@where.test"),
                        A(name: "John", email: "jdoe@one.test"),
                    ])
            ])
        #expect(try AddressListParser.addressList("Undisclosed recipients:;") == [
            .group(name: "Undisclosed recipients", members: [])
        ])
    }

    @Test("RFC 5322 A.5: comments and white space anywhere CFWS goes")
    func appendixA5() throws {
        #expect(try AddressListParser.mailbox("Pete(A nice \\) chap) <pete(his account)@silly.test(his host)>") == A(
            name: "Pete", email: "pete@silly.test"))
        let group = try AddressListParser.addressList(
            "A Group(Some people)\r\n     :Chris Jones <c@(Chris's host.)public.example>,\r\n         joe@example.org,\r\n  John <jdoe@one.test> (my dear friend); (the end of the group)"
                .replacingOccurrences(of: "\r\n", with: ""))
        #expect(group == [
            .group(
                name: "A Group",
                members: [
                    A(name: "Chris Jones", email: "c@public.example"), A(email: "joe@example.org"),
                    A(name: "John", email: "jdoe@one.test"),
                ])
        ])
        #expect(try AddressListParser.addressList("(Empty list)(start)Hidden recipients  :(nobody(that I know))  ;") == [
            .group(name: "Hidden recipients", members: [])
        ])
    }

    @Test("RFC 5322 A.6: the obsolete phrase, route and domain forms")
    func appendixA6() throws {
        #expect(try AddressListParser.mailbox("Joe Q. Public <john.q.public@example.com>") == A(
            name: "Joe Q. Public", email: "john.q.public@example.com"))
        #expect(try AddressListParser.mailbox("Mary Smith <@node.test:mary@example.net>") == A(
            name: "Mary Smith", email: "mary@example.net", route: "@node.test"))
        #expect(try AddressListParser.mailbox("John Doe <jdoe@machine(comment).  example>") == A(
            name: "John Doe", email: "jdoe@machine.example"))
        #expect(try AddressListParser.mailbox("\"Mary Smith: Personal Account\" <smith@home.example>") == A(
            name: "Mary Smith: Personal Account", email: "smith@home.example"))
    }

    @Test("A source route is kept beside its address as @a,@b (RFC 5322 obs-route, IMAP's adl)")
    func sourceRoutes() throws {
        #expect(try AddressListParser.mailbox("<@route:user@domain>") == A(email: "user@domain", route: "@route"))
        #expect(try AddressListParser.mailbox("<@a.test,@b.test:user@domain>") == A(
            email: "user@domain", route: "@a.test,@b.test"))
        #expect(try AddressListParser.mailbox("< @a.test , ,@b.test (hop) : user@domain>") == A(
            email: "user@domain", route: "@a.test,@b.test"), "obs-domain-list: CFWS and empty members between")
        #expect(try AddressListParser.mailbox("<user@domain>").route == nil)
        let unterminated = try #require(throws: AddressListError.self) { try AddressListParser.mailbox("<@a.test user@b>") }
        #expect(unterminated.reason == .unexpected)
    }

    @Test("A bare address's trailing comment is its display name (RFC 8621 4.1.2.3, Dovecot's ENVELOPE)")
    func commentNames() throws {
        #expect(try AddressListParser.mailbox("user@domain (Real Name)") == A(name: "Real Name", email: "user@domain"))
        #expect(try AddressListParser.addressList("a@b (First), c@d") == [
            .mailbox(A(name: "First", email: "a@b")), .mailbox(A(email: "c@d")),
        ])
        #expect(try AddressListParser.mailbox("a@b (one) (two)").name == "two", "the last comment, as Dovecot takes")
        #expect(try AddressListParser.mailbox("a@b (a \\) b (nested))").name == "a ) b (nested)")
        #expect(try AddressListParser.mailbox("a@b (=?UTF-8?Q?Zo=C3=AB?=)").name == "Zoë")
        #expect(try AddressListParser.mailbox("a@b (  )").name == nil, "a blank comment is no name")
        #expect(try AddressListParser.mailbox("a (x) @ (y) b").name == nil, "comments inside the address are not")
        #expect(try AddressListParser.mailbox("<a@b> (c)").name == nil, "only a bare addr-spec takes its comment")
        #expect(try AddressListParser.mailbox("Pete <a@b> (c)").name == "Pete")
        #expect(try AddressListParser.addressList("team: a@b (Ann);") == [
            .group(name: "team", members: [A(name: "Ann", email: "a@b")])
        ])
    }

    @Test("Quoted local parts: a dot-atom is given unquoted, anything else stays quoted")
    func quotedLocalParts() throws {
        #expect(try AddressListParser.mailbox("\"own\"@agents.localhost").email == "own@agents.localhost")
        #expect(try AddressListParser.mailbox("<\"own\"@agents.localhost>").email == "own@agents.localhost")
        #expect(try AddressListParser.mailbox("\"john doe\"@example.com").email == "\"john doe\"@example.com")
        #expect(try AddressListParser.mailbox("x@[127.0.0.1]").email == "x@[127.0.0.1]")
    }

    @Test("Encoded words in display names are decoded; UTF-8 is RFC 6532's")
    func names() throws {
        #expect(try AddressListParser.mailbox("=?UTF-8?B?Wm/Dqw==?= <zoe@agents.localhost>").name == "Zoë")
        #expect(try AddressListParser.mailbox("Zoë <zoë@bücher.example>") == A(name: "Zoë", email: "zoë@bücher.example"))
    }

    @Test(
        "The sender-spoofing From lines are refused, not read as one of their addresses",
        arguments: [
            ("ceo@agents.localhost\rX-Hide: <own@agents.localhost>", AddressListError.Reason.controlCharacter),
            ("<ceo@agents.localhost> <own@agents.localhost>", .trailingText),
            ("<ceo@agents.localhost> \"<own@agents.localhost>\"", .trailingText),
            ("ceo@agents.localhost <own@agents.localhost>", .trailingText),
            ("\"<own@agents.localhost>\" ceo@agents.localhost", .badLocalPart),
        ])
    func spoofs(_ value: String, _ reason: AddressListError.Reason) {
        #expect(throws: AddressListError.self) { try AddressListParser.mailboxList(value) }
        do {
            _ = try AddressListParser.mailboxList(value)
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test(
        "Malformed fields are refused with their rule",
        arguments: [
            ("", AddressListError.Reason.empty),
            (" , ", .empty),
            ("a@b\u{0}", .controlCharacter),
            ("a@b\n", .controlCharacter),
            ("\"unterminated <a@b>", .unterminatedQuote),
            ("(comment <a@b>", .unterminatedComment),
            ("a@[1.2.3.4", .unterminatedLiteral),
            ("<>", .badLocalPart),
            ("<a@b", .unexpected),
            ("a@b>", .trailingText),
            ("jdoe", .missingDomain),
            ("john doe@example.com", .badLocalPart),
            ("a..b@example.com", .badLocalPart),
            ("a@example..com", .badDomain),
            ("a@", .badDomain),
            ("Name <a@b> c@d", .trailingText),
            ("a@b;", .trailingText),
            ("group: a@b", .unexpected),
        ])
    func refusals(_ value: String, _ reason: AddressListError.Reason) throws {
        let error = try #require(throws: AddressListError.self) { try AddressListParser.addressList(value) }
        #expect(error.reason == reason)
    }

    @Test("A group is refused where only mailboxes may be, and a list where one mailbox may be")
    func fieldShapes() throws {
        let group = try #require(throws: AddressListError.self) {
            try AddressListParser.mailboxList("team: own@agents.localhost;")
        }
        #expect(group.reason == .groupNotAllowed)
        let nested = try #require(throws: AddressListError.self) {
            try AddressListParser.addressList("outer: inner: a@b;;")
        }
        #expect(nested.reason == .groupNotAllowed)
        let two = try #require(throws: AddressListError.self) { try AddressListParser.mailbox("a@b, c@d") }
        #expect(two.reason == .notOneMailbox)
        #expect(try AddressListParser.mailboxList("a@b,, c@d ,") == [A(email: "a@b"), A(email: "c@d")])
    }

    @Test("Plain addresses: a dot-atom, @, a dot-atom")
    func plainAddresses() {
        #expect(AddressListParser.isPlainAddress("a.b+tag@example.com"))
        #expect(!AddressListParser.isPlainAddress("\"a\"@example.com"))
        #expect(!AddressListParser.isPlainAddress("a b@example.com"))
        #expect(!AddressListParser.isPlainAddress("a@b@c"))
        #expect(!AddressListParser.isPlainAddress(".a@b"))
        #expect(!AddressListParser.isPlainAddress("a@b."))
        #expect(!AddressListParser.isPlainAddress("<a@b>"))
        #expect(!AddressListParser.isPlainAddress(String(repeating: "a", count: 250) + "@b.cd"))
    }
}
