import Testing
import WebSocket

@Suite("UTF-8 validation in pieces")
struct UTF8ValidatorTests {
    @Test("valid texts, split at every byte")
    func valid() {
        for text in ["", "hello", "κόσμε", "€", "𝄞 music", "\u{10FFFF}", "\u{D7FF}\u{E000}"] {
            #expect(UTF8Validator.isValid(Array(text.utf8)))
            var validator = UTF8Validator()
            for byte in text.utf8 {
                let fed = validator.feed([byte])
                #expect(fed)
            }
            #expect(validator.isComplete)
        }
    }

    @Test(
        "overlong forms, surrogates, past U+10FFFF, stray continuation and bad leads are refused",
        arguments: [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xED, 0xA0, 0x80],
            [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xBF], [0xFE], [0xFF],
            [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80],
        ] as [[UInt8]])
    func invalid(bytes: [UInt8]) {
        #expect(!UTF8Validator.isValid(bytes))
    }

    @Test("a truncated sequence is incomplete, not invalid, until the text ends")
    func truncated() {
        var validator = UTF8Validator()
        let first = validator.feed([0xE2, 0x82])
        #expect(first)
        #expect(!validator.isComplete)
        let second = validator.feed([0xAC])
        #expect(second)
        #expect(validator.isComplete)
        #expect(!UTF8Validator.isValid([0xE2, 0x82]))
    }
}
