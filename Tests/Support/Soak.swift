import Foundation

/// Whether the timed checks run: they measure CPU or wall time, which `make test` on a shared machine must not
/// assert, so only `make soak` runs them (`POSTERN_SOAK=1`, through `Tests/Soak/timed-swift-checks`). Mark such a
/// test `.enabled(if: Soak.isEnabled, "timed: make soak")`.
public enum Soak {
    public static var isEnabled: Bool { ProcessInfo.processInfo.environment["POSTERN_SOAK"] == "1" }
}
