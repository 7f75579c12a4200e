import SignInMethods
import Testing

/// The policy's table (issue 88 item 3) and the `amr` a session records: pure.
@Suite("Second factor: the policy per first factor, and the amr values")
struct SecondFactorPolicyTests {
    @Test("each policy's step after a password, a provider and a passkey, enrolled or not")
    func steps() {
        let rows: [(SecondFactorPolicy, AuthenticationMethods, Bool, SecondFactorPolicy.Step)] = [
            (.off, .password, true, .none), (.off, .provider, true, .none),
            (.optional, .password, true, .code), (.optional, .password, false, .none),
            (.optional, .provider, true, .none), (.optional, .passkey, true, .none),
            (.requiredForPasswords, .password, false, .setUp), (.requiredForPasswords, .password, true, .code),
            (.requiredForPasswords, .provider, false, .none), (.requiredForPasswords, .provider, true, .none),
            (.requiredExceptPasskeys, .provider, false, .setUp), (.requiredExceptPasskeys, .provider, true, .code),
            (.requiredExceptPasskeys, .password, true, .code), (.requiredExceptPasskeys, .passkey, false, .none),
        ]
        for (policy, first, enrolled, step) in rows {
            #expect(policy.step(after: first, enrolled: enrolled) == step, "\(policy) \(first.amr) \(enrolled)")
        }
    }

    @Test("amr: the RFC 8176 values in a fixed order, mfa when two; the stored text reads back")
    func amr() {
        #expect(AuthenticationMethods.password.amr == ["pwd"])
        #expect(AuthenticationMethods.passkey.amr == ["hwk"])
        #expect(AuthenticationMethods([.provider, .oneTimeCode]).amr == ["otp", "fed", "mfa"])
        #expect(AuthenticationMethods([.oneTimeCode, .password]).stored == "pwd otp mfa")
        #expect(AuthenticationMethods(stored: "pwd otp mfa") == [.password, .oneTimeCode])
        #expect(AuthenticationMethods(stored: "") == [])
        #expect(AuthenticationMethods(stored: "pwd unknown") == .password)
        #expect(!AuthenticationMethods.passkey.isMultiFactor)
        #expect(AuthenticationMethods([.password, .oneTimeCode]).isMultiFactor)
    }
}
