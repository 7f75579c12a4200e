import CustomDomains

/// Why a domain could not be added, verified or deleted: the custom domains' own errors. ``DomainClaimError/taken``
/// when another owner or a Mail.td Pro user holds it verified, this server serves it itself (agent or mailbox
/// domains), or the owner has a claim on it already; ``DomainClaimError/limitReached`` past
/// ``OwnerDomains/limit``; ``DomainClaimError/expired`` for a claim pending past
/// ``OwnerDomains/verificationWindow``; ``DomainClaimError/inUse`` while inboxes are still on the domain.
public typealias OwnerDomainError = DomainClaimError
