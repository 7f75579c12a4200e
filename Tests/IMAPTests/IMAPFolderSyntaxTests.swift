import Testing

@testable import IMAP

/// The syntax folders need (decision 35), pure: modified UTF-7 names (RFC 3501 §5.1.3), `CREATE ... (USE (...))`
/// (RFC 6154), RFC 5258's selection options and `CHILDINFO`, and the session's decoding of an IMAP4rev1 client's names.
@Suite("IMAP folder syntax")
struct IMAPFolderSyntaxTests {
    @Test("modified UTF-7: RFC 3501's example and imaptest's, both ways; `&` is `&-`")
    func knownAnswers() {
        let vectors = [
            ("~peter/mail/&U,BTFw-/&ZeVnLIqe-", "~peter/mail/台北/日本語"),
            ("p&AOQA5A-", "pää"),
            ("Tom &- Jerry", "Tom & Jerry"),
            ("&2D3eAA-", "😀"),
            ("INBOX", "INBOX"),
        ]
        for (encoded, name) in vectors {
            #expect(IMAPModifiedUTF7.decode(encoded) == name)
            #expect(IMAPModifiedUTF7.encode(name) == encoded)
        }
    }

    @Test("modified UTF-7: what RFC 3501 does not write is refused")
    func refusals() {
        for bad in [
            "a&Jjo", "p\u{E4}", "&AGE-", "&U,BTFw-&ZeVnLIqe-", "&U/BTFw-", "&AOQ=-", "&AOR-", "a\tb", "&2D0-",
        ] {
            #expect(IMAPModifiedUTF7.decode(bad) == nil, "\(bad)")
        }
    }

    @Test("CREATE with RFC 6154's USE, byte by byte; a malformed parameter is BAD")
    func createSpecialUse() throws {
        #expect(
            try IMAPCommandParserTests.kind("t1 CREATE MyJunk (USE (\\Junk))")
                == .create(IMAPMailboxName("MyJunk"), use: ["\\Junk"]))
        #expect(
            try IMAPCommandParserTests.kind("t2 CREATE \"Old mail\" (use (\\Archive \\Flagged))")
                == .create(IMAPMailboxName("Old mail"), use: ["\\Archive", "\\Flagged"]))
        #expect(try IMAPCommandParserTests.kind("t3 CREATE x (USE ())") == .create(IMAPMailboxName("x"), use: []))
        #expect(IMAPCommandParserTests.error("t4 CREATE x (COLOUR (red))")?.error == .syntax("USE"))
        #expect(IMAPCommandParserTests.error("t5 CREATE x (USE (Junk))")?.error == .syntax("a special-use attribute"))
        #expect(IMAPCommandParserTests.error("t6 CREATE x (USE (\\Junk)") != nil)
    }

    @Test("LIST's selection options: an unknown one is BAD, and so is RECURSIVEMATCH alone or with REMOTE only")
    func selectionOptions() throws {
        #expect(
            try IMAPCommandParserTests.kind("a LIST (SUBSCRIBED RECURSIVEMATCH) \"\" %")
                == .list(IMAPListCommand(selectionOptions: ["SUBSCRIBED", "RECURSIVEMATCH"], reference: "", patterns: ["%"])))
        _ = try IMAPCommandParserTests.kind("a LIST (REMOTE) \"\" %")
        for bad in ["a LIST (imaptest) \"\" \"\"", "a LIST (recursivematch) \"\" \"\"", "a LIST (recursivematch remote) \"\" \"\""] {
            #expect(IMAPCommandParserTests.error(bad) != nil, "\(bad)")
        }
    }

    @Test("LIST's CHILDINFO and names in modified UTF-7 before IMAP4rev2, UTF-8 after")
    func encoding() {
        let item = IMAPListItem(
            attributes: ["\\HasChildren"], delimiter: "/", name: IMAPMailboxName("Räume"), childInfo: ["SUBSCRIBED"])
        #expect(
            IMAPResponseEncoderTests.text(.untagged(.list(item)))
                == "* LIST (\\HasChildren) \"/\" R&AOQ-ume (\"CHILDINFO\" (\"SUBSCRIBED\"))\r\n")
        #expect(
            IMAPResponseEncoderTests.text(.untagged(.mailboxStatus(IMAPMailboxName("pää"), [])), utf8Quoted: true)
                == "* STATUS \"pää\" ()\r\n")
        #expect(
            IMAPResponseEncoderTests.text(.untagged(.mailboxStatus(IMAPMailboxName("a & b"), [])))
                == "* STATUS \"a &- b\" ()\r\n")
    }

    @Test("the session hands the driver an IMAP4rev1 client's names in UTF-8, and refuses one not in modified UTF-7")
    func sessionDecodes() {
        var harness = IMAPSessionHarness.loopback(byteByByte: true)
        harness.signIn()
        _ = harness.takeRequests()
        harness.send("a CREATE \"Archive/p&AOQA5A-\"\r\n")
        guard case .run(let command, _)? = harness.takeRequests().last else {
            Issue.record("no request")
            return
        }
        #expect(command.kind == .create(IMAPMailboxName("Archive/pää"), use: []))
        harness.complete([], IMAPStatusResponse(.ok, "CREATE completed"))
        _ = harness.take()
        harness.send("b RENAME x \"bad&AGE-\"\r\n")
        #expect(harness.take() == "b NO [CANNOT] The mailbox name is not modified UTF-7\r\n")
        #expect(harness.takeRequests().isEmpty)
        harness.send("c ENABLE IMAP4rev2\r\nd DELETE \"p&AOQA5A-\"\r\n")
        guard case .run(let raw, _)? = harness.takeRequests().last else {
            Issue.record("no request")
            return
        }
        #expect(raw.kind == .delete(IMAPMailboxName("p&AOQA5A-")), "after IMAP4rev2, names are UTF-8 as sent")
    }

    @Test("a LIST pattern that is no modified UTF-7 is kept as sent (it matches nothing), never refused")
    func patternsKept() {
        let kind = IMAPCommandKind.list(IMAPListCommand(reference: "", patterns: ["a&'b%", "p&AOQA5A-*"]))
        #expect(
            kind.mappingMailboxNames(IMAPModifiedUTF7.decode)
                == .list(IMAPListCommand(reference: "", patterns: ["a&'b%", "pää*"])))
        #expect(IMAPCommandKind.delete(IMAPMailboxName("a&'b")).mappingMailboxNames(IMAPModifiedUTF7.decode) == nil)
    }
}
