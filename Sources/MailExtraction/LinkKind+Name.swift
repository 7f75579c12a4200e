/// A link kind's name on every door that serves it (the operator's API, MCP, the command line): `verify`, `sign-in`,
/// `reset`, `unsubscribe`, `other` (issue 85), one spelling wherever a client reads or sends one.
extension LinkKind {
    /// The name doors write and read.
    public var name: String {
        switch self {
        case .verify: "verify"
        case .signIn: "sign-in"
        case .reset: "reset"
        case .unsubscribe: "unsubscribe"
        case .other: "other"
        }
    }

    /// The kind named `name` (as ``name`` writes it); nil for any other text.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }
}
