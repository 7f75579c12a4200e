/// How many unexpired rows anyone may make without signing in, in a table of ceremonies in progress (a passkey
/// sign-in's challenge, a sign-in provider's login transaction): each client its own share, all clients together a
/// ceiling that is only a last resort (issue 81 item 10). Both are counted in the database, so every instance shares
/// them; each row records its client (`client`, migration 0065) for its share.
///
/// One client past its share is refused while another client still begins a ceremony: a flood costs only the client
/// that sends it. The ceiling stays because the number of clients is not bounded (an IPv6 client counts per /64, and
/// one holder may have many): it is reached only by ``total`` / ``perClient`` clients at their share at once.
public struct UnauthenticatedRowLimits: Sendable, Equatable {
    /// Most unexpired rows one client (its `ClientAddressKey`: an IPv4 address, an IPv6 /64) may hold. Default 100:
    /// a person at a sign-in page begins a few; the pages' budget (60 requests a minute) would let one client make
    /// 300 passkey challenges (five minutes each) or 600 login transactions (ten minutes each).
    public var perClient = 100
    /// Most unexpired rows of all clients together: the last resort against many clients at once. Default 100,000:
    /// a thousand clients at their share; some 10 MB of passkey challenges or 40 MB of login transactions.
    public var total = 100_000

    /// The defaults listed on each property.
    public init() {}

    /// `perClient` and `total` as given.
    public init(perClient: Int, total: Int) {
        self.perClient = perClient
        self.total = total
    }

    /// The caps of an insert of one row by `client` into `table`, whose rows that count are those matching
    /// `unauthenticated` (an SQL condition with no bindings) and unexpired at `now` (`expires_at` compared with
    /// `unexpired`, `>=` or `>`): the client's share first, whose count is small and indexed, then the ceiling.
    public func caps(
        table: StaticString, unauthenticated: StaticString, unexpired: StaticString, client: String, now: Int64
    ) -> [RowCap] {
        let live = "\(unauthenticated) AND expires_at \(unexpired) ?"
        return [
            RowCap(
                count: "SELECT COUNT(*) AS n FROM \(table) WHERE client = ? AND \(live)",
                bindings: [.text(client), .integer(now)], limit: perClient),
            RowCap(count: "SELECT COUNT(*) AS n FROM \(table) WHERE \(live)", bindings: [.integer(now)], limit: total),
        ]
    }
}
