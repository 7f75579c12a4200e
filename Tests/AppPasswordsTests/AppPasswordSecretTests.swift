import AppPasswords
import Testing

/// The app password's secret: its form, its lenient reading and its digest (issue 87 item 2).
@Suite("App passwords: the secret's form, reading and digest")
struct AppPasswordSecretTests {
    @Test("a fixed source of bytes gives a known secret: bytes of 234 and over are drawn again, the rest taken mod 26")
    func knownAnswer() {
        // 0 → a, 25 → z, 26 → a, 233 → z (233 mod 26 = 25), 234 and 255 skipped, then 1, 2, 3, ...
        var calls = 0
        let secret = AppPasswordSecret.generate { count in
            calls += 1
            return calls == 1 ? [0, 25, 26, 233, 234, 255] : (1...count).map { UInt8($0) }
        }
        #expect(secret == "azaz-bcde-fghi-jklm-nopq-rstu-vwxy")
        #expect(calls == 2)
    }

    @Test("a generated secret is seven groups of four lowercase letters, 131 bits, and two are never the same")
    func form() {
        let secrets = (0..<200).map { _ in AppPasswordSecret.generate() }
        for secret in secrets {
            let groups = secret.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.count == 7 && groups.allSatisfy { $0.count == 4 })
            #expect(secret.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) })
        }
        #expect(Set(secrets).count == secrets.count)
        // 28 letters of 26 each: 28 × log2(26) ≈ 131.6 bits, at least the 128 asked.
        #expect(Double(AppPasswordSecret.letterCount) * 4.700_439_718 >= 128)
    }

    @Test("typed as a person copies it (no dashes, spaces, capitals) it reads as the same letters; anything else is none")
    func normalized() {
        let letters = Array("abcdefghijklmnopqrstuvwxyzab".utf8)
        for typed in [
            "abcd-efgh-ijkl-mnop-qrst-uvwx-yzab", "abcdefghijklmnopqrstuvwxyzab", "ABCD EFGH IJKL MNOP QRST UVWX YZAB",
            " abcd-efgh-ijkl-mnop-qrst-uvwx-yzab ",
        ] {
            #expect(AppPasswordSecret.normalized(typed) == letters, "\(typed)")
        }
        for typed in [
            "", "abcd-efgh-ijkl-mnop-qrst-uvwx-yza", "abcd-efgh-ijkl-mnop-qrst-uvwx-yzabc", "abcd-efgh-ijkl-mnop-qrst-uvwx-yza1",
            "abcd_efgh_ijkl_mnop_qrst_uvwx_yzab", "äbcd-efgh-ijkl-mnop-qrst-uvwx-yzab", "correct horse battery staple",
            String(repeating: "-", count: 100) + "abcdefghijklmnopqrstuvwxyzab",
        ] {
            #expect(AppPasswordSecret.normalized(typed) == nil, "\(typed)")
        }
    }

    @Test("the digest is SHA-256 of the 28 letters (a known answer) and matches the secret however it is typed")
    func digest() {
        let letters = Array("abcdefghijklmnopqrstuvwxyzab".utf8)
        let digest = AppPasswordSecret.digest(letters)
        // printf 'abcdefghijklmnopqrstuvwxyzab' | sha256sum
        #expect(digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() == "270670bb64a4547b748092719837616dee178fffc8f40f030f1290b83aa13582")
        #expect(AppPasswordSecret.matches("ABCD-efgh-ijkl-mnop-qrst-uvwx-yzab", digest: digest))
        #expect(!AppPasswordSecret.matches("abcd-efgh-ijkl-mnop-qrst-uvwx-yzac", digest: digest))
        #expect(!AppPasswordSecret.matches("not one", digest: digest))
        #expect(!AppPasswordSecret.matches("abcd-efgh-ijkl-mnop-qrst-uvwx-yzab", digest: Array(digest.dropLast())))
    }

    @Test("doors read from their names, any case; an unknown name or none is refused")
    func doors() {
        #expect(AppPasswordDoors(names: ["IMAP", "submission"]) == [.imap, .submission])
        #expect(AppPasswordDoors(names: ["pop3"])?.names == ["pop3"])
        #expect(AppPasswordDoors(names: ["imap", "jmap"]) == nil)
        #expect(AppPasswordDoors(names: []) == nil)
        #expect(AppPasswordDoors.all.names == ["imap", "pop3", "submission"])
    }
}
