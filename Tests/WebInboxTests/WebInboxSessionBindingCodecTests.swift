import Testing
import WebInbox

/// The `binding` column's spellings, which sessions already stored rest on: a known answer for each case, both ways.
@Suite("Web inbox: a session binding's stored spelling")
struct WebInboxSessionBindingCodecTests {
    static let vectors: [(WebInboxSessionBinding, String)] = [
        (.allMail, "all"),
        (.tokenEpoch(0), "epoch:0"),
        (.tokenEpoch(1_732_610_000), "epoch:1732610000"),
        (.tokenEpoch(-3), "epoch:-3"),
        (.apiToken(id: "0b6f6a0e-2b1c-4d8e-9f3a-5c7d9e1f2a3b"), "token:0b6f6a0e-2b1c-4d8e-9f3a-5c7d9e1f2a3b"),
        (.account(id: "a1b2c3d4-0000-4000-8000-000000000001"), "account:a1b2c3d4-0000-4000-8000-000000000001"),
        (.account(id: nil), "account:"),
        (.catchAll, "catch-all"),
    ]

    @Test("each binding is written as sessions stored it, and read back", arguments: vectors)
    func knownAnswer(binding: WebInboxSessionBinding, text: String) {
        #expect(binding.encoded == text)
        #expect(WebInboxSessionBinding(encoded: text) == binding)
    }

    @Test("anything else is no binding: a session resting on it reads nothing")
    func refused() {
        for text in ["", "epoch:", "epoch:x", "epoch:+1", "epoch:01", "Epoch:1", "all ", "catchall", "pro:1", "token"] {
            #expect(WebInboxSessionBinding(encoded: text) == nil, "\(text)")
        }
    }
}
