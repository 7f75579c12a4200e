import EmbeddedResources
import Foundation
import Testing

@testable import PosternApp

/// Postern describes itself in the same words everywhere it does: `postern --help`, `/llms.txt`, `/openapi.json`,
/// `Package.swift` and the README.
@Suite("one intro wherever Postern describes itself")
struct PosternIntroTests {
    /// `text` with every run of white space (a wrapped line, a `//` comment's line break) as one space.
    private static func flattened(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private static func repositoryFile(_ path: String) throws -> String {
        try String(contentsOf: ServeProcessTests.repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("postern --help opens with the summary and names every surface")
    func help() throws {
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments = ["--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(Self.flattened(output).hasPrefix("OVERVIEW: " + PosternIntro.text), "\(output)")
    }

    @Test("/llms.txt opens with the intro")
    func llms() {
        let text = LLMsDocumentTests.render()
        #expect(text.hasPrefix("# Postern\n\n" + PosternIntro.text + " Base URL: http://guide.test\n"), "\(text)")
    }

    @Test("/openapi.json's info.description is the intro")
    func openAPI() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(EmbeddedResources.openAPIDocument.bytes)) as? [String: Any])
        let info = try #require(document["info"] as? [String: Any])
        #expect(info["description"] as? String == PosternIntro.text)
    }

    @Test("Package.swift's opening comment and the README say the same")
    func packageAndReadme() throws {
        let comment = try Self.repositoryFile("Package.swift").split(separator: "\n").dropFirst()
            .prefix { $0.hasPrefix("//") }.map { $0.dropFirst(2) }.joined(separator: " ")
        #expect(Self.flattened(comment).hasPrefix("Postern. " + PosternIntro.text), "\(comment)")
        let readmeSaysIt = Self.flattened(try Self.repositoryFile("README.md")).contains(PosternIntro.summary)
        #expect(readmeSaysIt, "README.md does not say \(PosternIntro.summary)")
    }
}
