/// Every surface's accounts as one directory: an address is local when one member has it, unknown when a member
/// serves its domain but none has it, foreign otherwise.
public struct LocalDirectory: AccountDirectory {
    let members: [any AccountDirectory]

    /// - Parameter members: the surfaces' directories, asked in this order.
    public init(_ members: [any AccountDirectory]) {
        self.members = members
    }

    /// Whether any member serves `domain` (any case).
    public func serves(domain: String) -> Bool {
        let domain = domain.lowercased()
        return members.contains { $0.serves(domain: domain) }
    }

    /// The first member's ``AddressResolution/local(_:)``; ``AddressResolution/unknown`` when a member serves
    /// the domain but none has the address; ``AddressResolution/foreign`` otherwise.
    /// - Throws: the first storage error of a member asked.
    public func resolve(_ address: String) async throws -> AddressResolution {
        var resolution = AddressResolution.foreign
        for member in members {
            switch try await member.resolve(address) {
            case .local(let recipient): return .local(recipient)
            case .unknown: resolution = .unknown
            case .foreign: continue
            }
        }
        return resolution
    }
}
