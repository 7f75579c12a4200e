import OAuthGrants
import Testing

/// The device code's machine (RFC 8628 sections 3.4 and 3.5) against a clock the test moves.
@Suite("OAuth device codes: pending, slow_down, approved once, denied, expired")
struct OAuthDeviceCodeStateTests {
    /// A code started at 1,000 with the default interval and lifetime.
    static func fresh() -> OAuthDeviceCodeState { OAuthDeviceCodeState(expiresAt: 1_600, interval: 5) }

    @Test("polls at the interval are pending; each poll sooner adds 5 s to the interval, counted from that poll")
    func slowDown() {
        var state = Self.fresh()
        #expect(state.poll(now: 1_000) == .pending)
        #expect(state.poll(now: 1_005) == .pending)
        #expect(state.poll(now: 1_007) == .slowDown(interval: 10))
        #expect(state.lastPolledAt == 1_007)
        #expect(state.poll(now: 1_016) == .slowDown(interval: 15))
        #expect(state.poll(now: 1_030) == .slowDown(interval: 20))
        #expect(state.poll(now: 1_050) == .pending)
        #expect(state.poll(now: 1_070) == .pending)
        #expect(state.interval == 20)
    }

    // The transitions mutate, so each answer is taken before it is checked (`#expect` cannot call a mutating method).

    @Test("approved: the next poll gets the grant however soon, it is redeemed once, later polls are refused")
    func approvedOnce() {
        var state = Self.fresh()
        #expect(state.poll(now: 1_000) == .pending)
        let approved = state.approve(grantID: "g1", now: 1_001)
        let approvedAgain = state.approve(grantID: "g2", now: 1_001)
        let deniedAfter = state.deny(now: 1_001)
        #expect(approved && !approvedAgain && !deniedAfter && !state.answerable(now: 1_001))
        #expect(state.poll(now: 1_002) == .approved(grantID: "g1"))
        let redeemed = state.redeem(now: 1_002)
        let redeemedAgain = state.redeem(now: 1_003)
        #expect(redeemed && !redeemedAgain)
        #expect(state.poll(now: 1_010) == .redeemed)
        #expect(state.poll(now: 2_000) == .redeemed)
    }

    @Test("a code is not redeemed before the owner approves it")
    func notBeforeApproval() {
        var state = Self.fresh()
        let redeemed = state.redeem(now: 1_000)
        #expect(!redeemed)
        #expect(state.poll(now: 1_000) == .pending)
    }

    @Test("denied: access_denied at every poll; the owner cannot approve it afterwards")
    func denied() {
        var state = Self.fresh()
        let denied = state.deny(now: 1_010)
        let approvedAfter = state.approve(grantID: "g1", now: 1_011)
        #expect(denied && !approvedAfter)
        #expect(state.poll(now: 1_011) == .denied)
        #expect(state.poll(now: 1_012) == .denied)
        let redeemed = state.redeem(now: 1_012)
        #expect(!redeemed)
    }

    @Test("expired at its end: expired_token; nobody answers or redeems it")
    func expired() {
        var state = Self.fresh()
        #expect(state.answerable(now: 1_599))
        #expect(!state.answerable(now: 1_600))
        let approvedLate = state.approve(grantID: "g1", now: 1_600)
        #expect(!approvedLate)
        #expect(state.poll(now: 1_600) == .expired)
        var approved = Self.fresh()
        let approvedInTime = approved.approve(grantID: "g1", now: 1_500)
        #expect(approvedInTime)
        #expect(approved.poll(now: 1_600) == .expired)
        let redeemedLate = approved.redeem(now: 1_600)
        #expect(!redeemedLate)
        var denied = Self.fresh()
        let deniedInTime = denied.deny(now: 1_500)
        #expect(deniedInTime)
        #expect(denied.poll(now: 1_700) == .expired)
    }

    @Test("a code revoked or denied after approval is denied, not redeemable")
    func revokedAfterApproval() {
        var state = OAuthDeviceCodeState(expiresAt: 1_600, interval: 5, grantID: "g1", denied: true)
        #expect(state.poll(now: 1_001) == .denied)
        let redeemed = state.redeem(now: 1_001)
        #expect(!redeemed)
    }
}
