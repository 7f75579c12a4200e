import SASL
import Testing

@testable import IMAP

@Suite("IMAP response encoder")
struct IMAPResponseEncoderTests {
    static func text(_ response: IMAPResponse, utf8Quoted: Bool = false) -> String {
        String(decoding: IMAPResponseEncoder(utf8Quoted: utf8Quoted).encode(response), as: UTF8.self)
    }

    static func address(_ name: String?, _ mailbox: String, _ host: String) -> IMAPAddress {
        IMAPAddress(name: name, mailbox: mailbox, host: host)
    }

    /// RFC 3501 §8's message 12: its envelope and body as the sample session shows them.
    static let sampleEnvelope = IMAPEnvelope(
        date: Array("Wed, 17 Jul 1996 02:23:25 -0700 (PDT)".utf8),
        subject: Array("IMAP4rev1 WG mtg summary and minutes".utf8),
        from: [address("Terry Gray", "gray", "cac.washington.edu")],
        to: [address(nil, "imap", "cac.washington.edu")],
        cc: [address(nil, "minutes", "CNRI.Reston.VA.US"), address("John Klensin", "KLENSIN", "MIT.EDU")],
        messageID: Array("<B27397-0100000@cac.washington.edu>".utf8))

    /// The RFC's line breaks are spaces, but the one between two addresses, which the grammar joins with nothing
    /// (`"(" 1*address ")"`).
    @Test("RFC 3501 §8: the FETCH FULL answer for message 12, byte for byte")
    func sampleFetch() {
        let response = IMAPResponse.untagged(
            .fetch(
                12,
                [
                    .flags([.seen]),
                    .internalDate(IMAPDateTime(seconds: 837_596_665, zoneMinutes: -420)),
                    .rfc822Size(4286),
                    .envelope(Self.sampleEnvelope),
                    .bodyStructure(
                        .part(
                            IMAPBodyPart(
                                type: "TEXT", subtype: "PLAIN", parameters: [("CHARSET", "US-ASCII")], size: 3028,
                                kind: .text(lines: 92))), extensible: false),
                ]))
        #expect(
            Self.text(response) == """
                * 12 FETCH (FLAGS (\\Seen) INTERNALDATE "17-Jul-1996 02:44:25 -0700" \
                RFC822.SIZE 4286 ENVELOPE ("Wed, 17 Jul 1996 02:23:25 -0700 (PDT)" \
                "IMAP4rev1 WG mtg summary and minutes" \
                (("Terry Gray" NIL "gray" "cac.washington.edu")) \
                (("Terry Gray" NIL "gray" "cac.washington.edu")) \
                (("Terry Gray" NIL "gray" "cac.washington.edu")) \
                ((NIL NIL "imap" "cac.washington.edu")) \
                ((NIL NIL "minutes" "CNRI.Reston.VA.US")\
                ("John Klensin" NIL "KLENSIN" "MIT.EDU")) NIL NIL \
                "<B27397-0100000@cac.washington.edu>") \
                BODY ("TEXT" "PLAIN" ("CHARSET" "US-ASCII") NIL NIL "7BIT" 3028 \
                92))\r\n
                """)
    }

    @Test("RFC 3501 §7.4.2: a multipart BODYSTRUCTURE, then one with extension data and a message/rfc822 part")
    func bodyStructure() {
        let mixed = IMAPBodyStructure.multipart(
            [
                .part(
                    IMAPBodyPart(
                        type: "TEXT", subtype: "PLAIN", parameters: [("CHARSET", "US-ASCII")], size: 1152,
                        kind: .text(lines: 23))),
                .part(
                    IMAPBodyPart(
                        type: "TEXT", subtype: "PLAIN", parameters: [("CHARSET", "US-ASCII"), ("NAME", "cc.diff")],
                        id: "<960723163407.20117h@cac.washington.edu>", description: "Compiler diff",
                        encoding: "BASE64", size: 4554, kind: .text(lines: 73))),
            ], subtype: "MIXED", extension: nil)
        #expect(
            Self.text(.untagged(.fetch(1, [.bodyStructure(mixed, extensible: true)]))) == """
                * 1 FETCH (BODYSTRUCTURE (("TEXT" "PLAIN" ("CHARSET" "US-ASCII") NIL NIL "7BIT" 1152 23)\
                ("TEXT" "PLAIN" ("CHARSET" "US-ASCII" "NAME" "cc.diff") "<960723163407.20117h@cac.washington.edu>" \
                "Compiler diff" "BASE64" 4554 73) "MIXED"))\r\n
                """)
        let inner = IMAPBodyStructure.part(IMAPBodyPart(type: "text", subtype: "plain", size: 5, kind: .text(lines: 1)))
        let withExtensions = IMAPBodyStructure.multipart(
            [
                .part(
                    IMAPBodyPart(
                        type: "message", subtype: "rfc822", size: 100,
                        kind: .message(IMAPEnvelope(subject: Array("Hi".utf8)), inner, lines: 4),
                        extension: IMAPBodyExtension(
                            disposition: IMAPBodyDisposition(
                                "attachment",
                                parameters: [("filename", "fwd.eml")]), language: ["en", "de"])))
            ], subtype: "mixed", extension: IMAPMultipartExtension(parameters: [("boundary", "b1")]))
        #expect(
            Self.text(.untagged(.fetch(2, [.bodyStructure(withExtensions, extensible: true)]))) == """
                * 2 FETCH (BODYSTRUCTURE (("MESSAGE" "RFC822" NIL NIL NIL "7BIT" 100 \
                (NIL "Hi" NIL NIL NIL NIL NIL NIL NIL NIL) ("TEXT" "PLAIN" NIL NIL NIL "7BIT" 5 1) 4 \
                NIL ("ATTACHMENT" ("FILENAME" "fwd.eml")) ("en" "de") NIL) "MIXED" ("BOUNDARY" "b1") NIL NIL NIL))\r\n
                """)
        // BODY (not BODYSTRUCTURE) leaves the extension data out.
        #expect(
            Self.text(.untagged(.fetch(2, [.bodyStructure(withExtensions, extensible: false)]))) == """
                * 2 FETCH (BODY (("MESSAGE" "RFC822" NIL NIL NIL "7BIT" 100 \
                (NIL "Hi" NIL NIL NIL NIL NIL NIL NIL NIL) ("TEXT" "PLAIN" NIL NIL NIL "7BIT" 5 1) 4) "MIXED"))\r\n
                """)
    }

    @Test(
        "Strings: quoted when they can be, a literal when they hold CR, LF or NUL, 8-bit before IMAP4rev2, or are long")
    func quotingOrLiteral() {
        func body(_ bytes: [UInt8]?, utf8Quoted: Bool = false) -> String {
            Self.text(
                .untagged(.fetch(1, [.body(IMAPSection(text: .header), origin: nil, bytes)])), utf8Quoted: utf8Quoted)
        }
        #expect(body(Array("a \"q\" \\".utf8)) == "* 1 FETCH (BODY[HEADER] \"a \\\"q\\\" \\\\\")\r\n")
        #expect(body(Array("To: x\r\n\r\n".utf8)) == "* 1 FETCH (BODY[HEADER] {9}\r\nTo: x\r\n\r\n)\r\n")
        #expect(body(nil) == "* 1 FETCH (BODY[HEADER] NIL)\r\n")
        #expect(body(Array("jö".utf8)) == "* 1 FETCH (BODY[HEADER] {3}\r\njö)\r\n")
        #expect(body(Array("jö".utf8), utf8Quoted: true) == "* 1 FETCH (BODY[HEADER] \"jö\")\r\n")
        #expect(
            IMAPResponseEncoder(utf8Quoted: true).encode(
                .untagged(.fetch(1, [.body(IMAPSection(), origin: nil, [0x6A, 0xFF])])))
                == Array("* 1 FETCH (BODY[] {2}\r\nj".utf8) + [0xFF] + Array(")\r\n".utf8))
        let long = String(repeating: "x", count: 1025)
        #expect(body(Array(long.utf8)) == "* 1 FETCH (BODY[HEADER] {1025}\r\n\(long))\r\n")
    }

    @Test("FETCH body sections, partials, BINARY as literal8 when it holds a NUL, UID and sizes")
    func fetchItems() {
        let response = IMAPResponse.untagged(
            .fetch(
                3,
                [
                    .uid(4_827_313),
                    .body(
                        IMAPSection(part: [1, 2], text: .headerFields(["DATE", "FROM"])), origin: nil, Array("x".utf8)),
                    .body(IMAPSection(), origin: 0, Array("abc".utf8)),
                    .body(IMAPSection(part: [2], text: .mime), origin: nil, nil),
                    .binary(part: [1], origin: nil, [0x61, 0x00]),
                    .binary(part: [2], origin: 5, Array("ok".utf8)),
                    .binarySize(part: [1], 2),
                    .rfc822Size(44827),
                ]))
        #expect(
            Self.text(response) == "* 3 FETCH (UID 4827313 BODY[1.2.HEADER.FIELDS (DATE FROM)] \"x\" BODY[]<0> \"abc\" "
                + "BODY[2.MIME] NIL BINARY[1] ~{2}\r\na\0 BINARY[2]<5> {2}\r\n"
                + "ok BINARY.SIZE[1] 2 RFC822.SIZE 44827)\r\n"
        )
    }

    @Test("Status responses with codes, as the RFCs write them")
    func statusResponses() {
        #expect(
            Self.text(.untagged(.condition(IMAPStatusResponse(.ok, code: .uidValidity(3_857_529_045), "UIDs valid"))))
                == "* OK [UIDVALIDITY 3857529045] UIDs valid\r\n")
        #expect(
            Self.text(.tagged(tag: "a", IMAPStatusResponse(.no, code: .authenticationFailed, "Authentication failed")))
                == "a NO [AUTHENTICATIONFAILED] Authentication failed\r\n")
        #expect(
            Self.text(
                .tagged(
                    tag: "A003",
                    IMAPStatusResponse(.ok, code: .appendUID(uidValidity: 38505, uid: 3955), "APPEND completed")))
                == "A003 OK [APPENDUID 38505 3955] APPEND completed\r\n")
        let source = IMAPSequenceSet.ranges(of: [304, 319, 320])
        let destination = IMAPSequenceSet.ranges(of: [3956, 3957, 3958])
        #expect(
            Self.text(
                .tagged(
                    tag: "A004",
                    IMAPStatusResponse(
                        .ok, code: .copyUID(uidValidity: 38505, source: source, destination: destination), "Done")))
                == "A004 OK [COPYUID 38505 304,319:320 3956:3958] Done\r\n")
        #expect(
            Self.text(
                .untagged(
                    .condition(
                        IMAPStatusResponse(
                            .ok, code: .permanentFlags([.deleted, .seen], allowsKeywords: true), "Limited"))))
                == "* OK [PERMANENTFLAGS (\\Deleted \\Seen \\*)] Limited\r\n")
        #expect(
            Self.text(
                .untagged(.condition(IMAPStatusResponse(.ok, code: .capability(["IMAP4rev2", "IDLE"]), "ready"))))
                == "* OK [CAPABILITY IMAP4rev2 IDLE] ready\r\n")
        #expect(
            Self.text(.tagged(tag: "t", IMAPStatusResponse(.bad, "line one\r\nline two")))
                == "t BAD line one  line two\r\n")
        #expect(Self.text(.continuation(.text("Ready for literal data"))) == "+ Ready for literal data\r\n")
        #expect(Self.text(.continuation(.challenge(SASLMessage(base64: "")))) == "+ \r\n")
    }

    @Test("Mailbox data: FLAGS, EXISTS, EXPUNGE, LIST, STATUS, SEARCH, ESEARCH, NAMESPACE, ENABLED")
    func mailboxData() {
        #expect(
            Self.text(.untagged(.flags([.answered, .flagged, .deleted, .seen, .draft])))
                == "* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)\r\n")
        #expect(Self.text(.untagged(.exists(23))) == "* 23 EXISTS\r\n")
        #expect(Self.text(.untagged(.expunge(3))) == "* 3 EXPUNGE\r\n")
        #expect(
            Self.text(
                .untagged(
                    .list(
                        IMAPListItem(
                            attributes: ["\\HasNoChildren", "\\Sent"], delimiter: "/", name: IMAPMailboxName("Sent")))))
                == "* LIST (\\HasNoChildren \\Sent) \"/\" Sent\r\n")
        #expect(
            Self.text(.untagged(.list(IMAPListItem(attributes: [], delimiter: nil, name: IMAPMailboxName("My Mail")))))
                == "* LIST () NIL \"My Mail\"\r\n")
        #expect(
            Self.text(
                .untagged(
                    .mailboxStatus(
                        IMAPMailboxName("blurdybloop"),
                        [IMAPStatusValue(.messages, 231), IMAPStatusValue(.uidNext, 44292)])))
                == "* STATUS blurdybloop (MESSAGES 231 UIDNEXT 44292)\r\n")
        #expect(Self.text(.untagged(.search([2, 84, 882]))) == "* SEARCH 2 84 882\r\n")
        #expect(Self.text(.untagged(.sort([5, 3, 4]))) == "* SORT 5 3 4\r\n")
        #expect(Self.text(.untagged(.sort([]))) == "* SORT\r\n")
        // RFC 5256 §4's example: one reply inline, several each in parentheses, nested.
        let threads = [
            IMAPThreadNode(2),
            IMAPThreadNode(3, children: [
                IMAPThreadNode(6, children: [
                    IMAPThreadNode(4, children: [IMAPThreadNode(23)]),
                    IMAPThreadNode(44, children: [IMAPThreadNode(7, children: [IMAPThreadNode(96)])]),
                ])
            ]),
        ]
        #expect(Self.text(.untagged(.thread(threads))) == "* THREAD (2)(3 6 (4 23)(44 7 96))\r\n")
        #expect(Self.text(.untagged(.thread([]))) == "* THREAD\r\n", "thread-data: THREAD [SP 1*thread-list]")
        #expect(Self.text(.untagged(.search([]))) == "* SEARCH\r\n")
        #expect(
            Self.text(.untagged(.esearch(IMAPESearchResult(tag: "A282", uid: false, min: 2, count: 3))))
                == "* ESEARCH (TAG \"A282\") MIN 2 COUNT 3\r\n")
        #expect(
            Self.text(
                .untagged(
                    .esearch(IMAPESearchResult(tag: "A283", uid: true, all: IMAPSequenceSet.ranges(of: [2, 10, 11])))))
                == "* ESEARCH (TAG \"A283\") UID ALL 2,10:11\r\n")
        #expect(
            Self.text(
                .untagged(
                    .namespace(personal: [IMAPNamespace(prefix: "", delimiter: "/")], otherUsers: nil, shared: nil)))
                == "* NAMESPACE ((\"\" \"/\")) NIL NIL\r\n")
        #expect(Self.text(.untagged(.enabled(["IMAP4rev2"]))) == "* ENABLED IMAP4rev2\r\n")
    }
}
