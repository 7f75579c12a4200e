import Testing

@testable import SASL

/// The OAuth SASL messages: RFC 7628 §4.1's OAUTHBEARER example and Google's XOAUTH2 shape, and what is refused.
@Suite("SASL: OAUTHBEARER and XOAUTH2 messages")
struct SASLBearerTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("OAUTHBEARER: RFC 7628 §4.1's message, an escaped authorization identity, none at all")
    func oauthBearer() {
        let example = "n,a=user@example.com,\u{1}host=server.example.com\u{1}port=143\u{1}"
            + "auth=Bearer vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg==\u{1}\u{1}"
        #expect(
            SASLBearer(oauthBearer: Self.bytes(example))
                == SASLBearer(user: "user@example.com", token: "vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg=="))
        #expect(
            SASLBearer(oauthBearer: Self.bytes("n,a=odd=2Cname=3D@x.test,\u{1}auth=bearer t.k-n\u{1}\u{1}"))
                == SASLBearer(user: "odd,name=@x.test", token: "t.k-n"))
        #expect(SASLBearer(oauthBearer: Self.bytes("n,,\u{1}auth=Bearer abc\u{1}\u{1}")) == SASLBearer(user: nil, token: "abc"))
    }

    @Test("OAUTHBEARER refused: channel binding, no Bearer, a bad escape, an empty token, RFC 7628's dummy answer")
    func oauthBearerRefused() {
        for text in [
            "p=tls-unique,a=u@x.test,\u{1}auth=Bearer abc\u{1}\u{1}", "n,a=u@x.test,\u{1}auth=Basic abc\u{1}\u{1}",
            "n,a=u=2Dx.test,\u{1}auth=Bearer abc\u{1}\u{1}", "n,a=u@x.test,\u{1}auth=Bearer \u{1}\u{1}",
            "n,a=u@x.test,\u{1}host=x\u{1}\u{1}", "\u{1}", "",
        ] {
            #expect(SASLBearer(oauthBearer: Self.bytes(text)) == nil, "\(text)")
        }
    }

    @Test("XOAUTH2: user= then auth=Bearer; refused without either")
    func xoauth2() {
        #expect(
            SASLBearer(xoauth2: Self.bytes("user=ann@x.test\u{1}auth=Bearer ya29.token\u{1}\u{1}"))
                == SASLBearer(user: "ann@x.test", token: "ya29.token"))
        #expect(SASLBearer(xoauth2: Self.bytes("auth=Bearer abc\u{1}\u{1}")) == nil)
        #expect(SASLBearer(xoauth2: Self.bytes("user=ann@x.test\u{1}\u{1}")) == nil)
    }
}
