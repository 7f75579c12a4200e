/// Every bound of the extraction, in one place, so that a hostile message (a 25 MB HTML part, 100,000 links, elements
/// nested without end) costs time and memory in proportion to these numbers, never to its size. Past a bound the
/// extraction reads less, it never fails: what lies beyond is not read.
public struct ExtractionLimits: Sendable, Equatable {
    /// Most bytes (UTF-8) of the HTML part read; the rest is not. Default 1 MiB (ten times what a mail reader shows
    /// before it clips a message).
    public var maximumHTMLBytes: Int
    /// Most characters (Unicode scalars) of text read from one source: the text part, or the visible text of the HTML
    /// part. Default 256 Ki.
    public var maximumTextScalars: Int
    /// Most characters of the subject read. Default 1000.
    public var maximumSubjectScalars: Int
    /// Deepest nesting of HTML elements followed for hiding and emphasis; deeper elements are read as text of their
    /// parent. Default 256.
    public var maximumElementDepth: Int
    /// Most code-shaped tokens weighed in one source; those after are not. Default 2000.
    public var maximumCandidates: Int
    /// Most codes returned. Default 10.
    public var maximumCodes: Int
    /// Most links returned. Default 1000.
    public var maximumLinks: Int
    /// Longest link kept, in characters; a longer `href` is passed over. Default 4096.
    public var maximumURLScalars: Int
    /// Most characters of a link's visible text kept. Default 200.
    public var maximumLinkTextScalars: Int

    /// The default limits.
    public static let `default` = ExtractionLimits()

    public init(
        maximumHTMLBytes: Int = 1024 * 1024, maximumTextScalars: Int = 256 * 1024, maximumSubjectScalars: Int = 1000,
        maximumElementDepth: Int = 256, maximumCandidates: Int = 2000, maximumCodes: Int = 10,
        maximumLinks: Int = 1000, maximumURLScalars: Int = 4096, maximumLinkTextScalars: Int = 200
    ) {
        self.maximumHTMLBytes = maximumHTMLBytes
        self.maximumTextScalars = maximumTextScalars
        self.maximumSubjectScalars = maximumSubjectScalars
        self.maximumElementDepth = maximumElementDepth
        self.maximumCandidates = maximumCandidates
        self.maximumCodes = maximumCodes
        self.maximumLinks = maximumLinks
        self.maximumURLScalars = maximumURLScalars
        self.maximumLinkTextScalars = maximumLinkTextScalars
    }
}
