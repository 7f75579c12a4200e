/// Something that gathers complete lines and writes them in batches: an `EventLoop` (one write per
/// turn), or a test's capture.
public protocol LineGatherer: AnyObject {
    /// Whether appended lines are kept (a sink is configured).
    var gathersLines: Bool { get }
    /// Lets `body` append complete lines.
    func appendLine(_ body: (inout [UInt8]) -> Void)
}

extension EventLoop: LineGatherer {}
