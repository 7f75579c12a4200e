import EmailAddresses

/// Every surface's accounts as one directory: an address is local when one member has it, unknown when a member
/// serves its domain but none has it, foreign otherwise.
public struct LocalDirectory: AccountDirectory {
    let members: [any AccountDirectory]

    /// - Parameter members: the surfaces' directories, asked in this order.
    public init(_ members: [any AccountDirectory]) {
        self.members = members
    }

    /// Whether any member serves `domain` (any ASCII case, or its Unicode form).
    public func serves(domain: String) -> Bool {
        let domain = EmailDomain.key(domain)
        return members.contains { $0.serves(domain: domain) }
    }

    /// The first member's ``AddressResolution/local(_:)``; ``AddressResolution/unknown`` when a member serves
    /// the domain but none has the address; ``AddressResolution/foreign`` otherwise.
    ///
    /// The members that serve the address's domain are asked first (in order), then the others: a member holds
    /// addresses on a domain it does not serve only through a verified custom-domain claim, and nobody may claim a
    /// domain this server serves (`CustomDomains.add`'s `served`), so an address on a served domain is found without
    /// the others' claim lookups (an agent inbox's mail and its web inbox page skip Mail.td's).
    /// - Throws: the first storage error of a member asked.
    public func resolve(_ address: String) async throws -> AddressResolution {
        var resolution = AddressResolution.foreign
        let domain = AddressParts(address)?.domain
        // Two passes over the members, without building lists on every lookup: those that serve, then the others.
        for serving in [true, false] {
            for member in members where (domain.map { member.serves(domain: $0) } ?? false) == serving {
                switch try await member.resolve(address) {
                case .local(let recipient): return .local(recipient)
                case .unknown: resolution = .unknown
                case .foreign: continue
                }
            }
        }
        return resolution
    }
}
