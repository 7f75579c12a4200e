import Foundation
import MIME
import Testing

@testable import MailExtraction

/// The corpus of issue 85 (corpus/README.md): every message gives exactly its expected codes, and the first link of
/// each kind its expected one; the summary prints precision and recall beside a naive six-digit baseline.
@Suite("Extraction: the corpus")
struct CorpusTests {
    struct Expected: Decodable {
        struct Link: Decodable {
            var url: String
            var kind: String
        }

        var codes: [String]
        var links: [Link]
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("corpus")

    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".eml") }.map { String($0.dropLast(4)) }.sorted()
    }()

    static func load(_ name: String) throws -> (raw: [UInt8], expected: Expected) {
        let raw = try Data(contentsOf: folder.appendingPathComponent(name + ".eml"))
        let json = try Data(contentsOf: folder.appendingPathComponent(name + ".expected.json"))
        return (Array(raw), try JSONDecoder().decode(Expected.self, from: json))
    }

    static let kinds: [LinkKind] = [.verify, .signIn, .reset, .unsubscribe]

    @Test("the corpus holds at least 200 messages, 40 of them without a code")
    func size() throws {
        #expect(Self.names.count >= 200)
        let withoutCode = try Self.names.filter { try Self.load($0).expected.codes.isEmpty }
        #expect(withoutCode.count >= 40)
    }

    @Test("each message: its codes exactly, and the first link of each kind", arguments: names)
    func message(_ name: String) throws {
        let (raw, expected) = try Self.load(name)
        let extraction = MessageExtraction.extract(raw: raw)
        #expect(extraction.codes.map(\.value) == expected.codes, "\(name)")
        for kind in Self.kinds {
            let wanted = expected.links.first { $0.kind == kind.rawValue }?.url
            let found = extraction.links.first { $0.kind == kind }?.url
            #expect(found == wanted, "\(name): first \(kind.rawValue) link")
        }
    }

    /// The counts the summary is made of.
    struct Tally {
        var reported = 0, wrong = 0, expectedCodes = 0, foundCodes = 0, firstRight = 0, withCode = 0
        var baselineRight = 0, baselineWrong = 0, actionLinks = 0, actionLinksRight = 0

        mutating func add(_ extraction: MessageExtraction, expected: Expected, naive: String?) {
            let values = extraction.codes.map(\.value)
            reported += values.count
            wrong += values.filter { !expected.codes.contains($0) }.count
            expectedCodes += expected.codes.count
            foundCodes += expected.codes.filter(values.contains).count
            if let first = expected.codes.first {
                withCode += 1
                if values.first == first { firstRight += 1 }
            }
            if let naive {
                if naive == expected.codes.first { baselineRight += 1 } else { baselineWrong += 1 }
            }
            for link in expected.links where ["verify", "signIn", "reset"].contains(link.kind) {
                actionLinks += 1
                if extraction.links.first(where: { $0.url == link.url })?.kind.rawValue == link.kind {
                    actionLinksRight += 1
                }
            }
        }
    }

    @Test("summary: precision and recall of codes and link kinds, beside a naive six-digit baseline")
    func summary() throws {
        var tally = Tally()
        for name in Self.names {
            let (raw, expected) = try Self.load(name)
            let message = try MIMEParser.parse(raw)
            tally.add(
                MessageExtraction.extract(raw: raw), expected: expected,
                naive: Self.firstSixDigits(message.textBody ?? message.htmlBody ?? ""))
        }
        let precision = Self.rate(tally.reported - tally.wrong, of: tally.reported)
        let recall = Self.rate(tally.foundCodes, of: tally.expectedCodes)
        let firstRate = Self.rate(tally.firstRight, of: tally.withCode)
        let linkRate = Self.rate(tally.actionLinksRight, of: tally.actionLinks)
        let naiveAnswers = tally.baselineRight + tally.baselineWrong
        print(
            """
            corpus: \(Self.names.count) messages, \(tally.withCode) with a code
              extraction: \(tally.reported) codes reported, \(tally.wrong) wrong (precision \(Self.percent(precision))), \
            recall \(Self.percent(recall)), first code right \(Self.percent(firstRate)); \
            verify/sign-in/reset link kinds right \(Self.percent(linkRate)) of \(tally.actionLinks)
              naive \\b\\d{6}\\b on the text part (else the HTML): \(tally.baselineRight) right, \(tally.baselineWrong) \
            wrong (precision \(Self.percent(Self.rate(tally.baselineRight, of: naiveAnswers)))), recall \
            \(Self.percent(Self.rate(tally.baselineRight, of: tally.withCode)))
            """)
        #expect(tally.wrong == 0)
        #expect(recall >= 0.98)
        #expect(firstRate >= 0.98)
        #expect(linkRate >= 0.98)
    }

    static func rate(_ part: Int, of whole: Int) -> Double { whole == 0 ? 1 : Double(part) / Double(whole) }

    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }

    /// What a hand-written `\b\d{6}\b` finds first: six ASCII digits with no letter, digit or underscore either side.
    static func firstSixDigits(_ text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        func word(_ index: Int) -> Bool {
            index >= 0 && index < scalars.count
                && (scalars[index].properties.isAlphabetic || scalars[index].properties.numericType != nil
                    || scalars[index] == "_")
        }
        var index = 0
        while index + 6 <= scalars.count {
            if !word(index - 1), (index..<index + 6).allSatisfy({ CodeTokenizer.isDigit(scalars[$0]) }),
                !word(index + 6)
            {
                return String(String.UnicodeScalarView(scalars[index..<index + 6]))
            }
            index += 1
        }
        return nil
    }
}
