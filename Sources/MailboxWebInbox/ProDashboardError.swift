/// Why the dashboard was refused: the Mail.td API's refusals, which the page words for a person.
enum ProDashboardError: Error, Sendable, Equatable {
    /// Not the user's (or no such) token, domain or webhook; or the user is no longer active.
    case notFound
    /// A token name over 100 characters.
    case invalidName
    /// Not a domain name.
    case invalidDomain
    /// Someone holds the domain, the server serves it, or the user claims it already.
    case domainTaken
    /// The user has `max_domains` domains already.
    case domainLimitReached
    /// The domain stayed pending past its verification window and was removed.
    case domainExpired
    /// Accounts of the user are still on the domain.
    case domainInUse
    /// Not an `https` URL the outbound policy allows.
    case invalidURL
    /// An event type no webhook receives.
    case invalidEvents
    /// The user has their one webhook already.
    case webhookLimitReached
}
