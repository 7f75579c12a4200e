/// A word or phrase of a source that says what the number near it is: a code, a step of verifying or signing in, or
/// something that is not a code (an order, a phone, a price, a promotion, a postal code).
struct CodeLabel {
    enum Meaning: Equatable {
        /// A word for a one-time code: `code`, `OTP`, `PIN`, `passcode`, `código`, `Bestätigungscode`, `验证码`.
        case code
        /// A word of the act a code serves: `verification`, `sign in`, `confirm`, `vérification`, `인증`.
        case act
        /// A word that asks for input: `enter`, `type`, `ingresa`, `saisissez`.
        case prompt
        /// A word for a number that is not a code: `order`, `invoice`, `phone`, `total`, `promo code`, `ZIP code`.
        case notCode
        /// A word for a meeting, a webinar or a conference: the numbers on its line and the next are its ids and
        /// passcodes, never a sign-in's code.
        case meeting
        /// A word of selling (`discount`, `checkout`, `coupon`, `descuento`): a code on its line is a promotion's.
        case promotion
    }

    var range: Range<Int>
    var meaning: Meaning

    /// What a label adds to the score of a code it names.
    var weight: Int {
        switch meaning {
        case .code: return 60
        case .act: return 35
        case .prompt: return 20
        case .notCode, .meeting, .promotion: return 0
        }
    }

    var isPositive: Bool { weight > 0 }
}
