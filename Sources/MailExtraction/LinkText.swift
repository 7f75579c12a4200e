import MIME

/// The kind of a link (``LinkKind``), read in this order, the first that answers deciding:
///
/// 1. Its visible text: words of unsubscribing, then of resetting a password, then of signing in or of verifying
///    (both: verifying when the text speaks of an email, an address or an account, else signing in), in English,
///    German, Spanish, Portuguese, French, Italian, Chinese, Japanese and Korean. A text about an order, a receipt, an
///    invoice or a shipment is of none (`View order confirmation`).
/// 2. The words around it, when its text says nothing at all (`click here`, the URL itself, none): the rest of its
///    line, or the line above when it starts its line (`To reset your password, visit:` then the URL). A text that
///    says something else (`See my picks` under `Sign in to see your picks`) keeps its own word: no kind.
/// 3. Its path and query, percent-decoded once so that the target of a tracking redirect shows (`unsubscribe`,
///    `optout`; `reset`, `forgot`, `password`; `magic`, `login`, `signin`; `verify`, `confirm`, `activate`).
///
/// A verify, sign-in or reset link carries something only its recipient holds: a path segment or query value of at
/// least 12 characters with a digit, or of 24 (a token, or a tracking redirect's id); one without is `other` (the
/// sign-in page, the forgotten-password page).
enum LinkText {
    /// Whether `url` is an `http` or `https` URL with something after the scheme.
    static func isWebURL(_ url: String) -> Bool {
        let scalars = Array(url.unicodeScalars)
        guard let length = MessageLinks.schemeLength(scalars, at: 0) else { return false }
        return scalars.count > length
    }

    /// The kind of a link and how surely (3 by its text, 2 by the words around it, 1 by its URL, 0 for `other`).
    static func kind(
        text: String, url: String, context: @autoclosure () -> String, textIsGeneric: Bool
    ) -> (LinkKind, Int) {
        let words = text.lowercased()
        let tokenBearing = hasToken(url)
        if !isWebURL(words), let kind = kind(ofWords: words) {
            return settle(kind, strength: 3, tokenBearing: tokenBearing)
        }
        if !words.isEmpty, notActionWords.contains(where: words.includes) { return (.other, 0) }
        // A text that says nothing of its link takes the kind of the words around it; one that says something else
        // (`See my picks` under `Sign in to see your picks`) keeps its own, which names no kind.
        if textIsGeneric || isWebURL(words) || words.isEmpty, let kind = kind(ofWords: context().lowercased()) {
            return settle(kind, strength: 2, tokenBearing: tokenBearing)
        }
        if let kind = kind(ofURL: url) { return settle(kind, strength: 1, tokenBearing: tokenBearing) }
        return (.other, 0)
    }

    /// Whether a text is too generic to say what its link is for (`click here`, `this link`, `aquí`).
    static func isGeneric(_ text: String) -> Bool {
        let words = text.lowercased().split { !$0.isLetter }
        return words.count <= 4 && words.allSatisfy { genericWords.contains(String($0)) }
    }

    private static func settle(_ kind: LinkKind, strength: Int, tokenBearing: Bool) -> (LinkKind, Int) {
        switch kind {
        case .verify, .signIn, .reset: return tokenBearing ? (kind, strength) : (.other, 0)
        case .unsubscribe, .other: return (kind, kind == .other ? 0 : strength)
        }
    }

    private static func kind(ofWords words: String) -> LinkKind? {
        guard !words.isEmpty else { return nil }
        if unsubscribeWords.contains(where: words.includes) { return .unsubscribe }
        if notActionWords.contains(where: words.includes) { return nil }
        if resetWords.contains(where: words.includes) { return .reset }
        let signIn = signInWords.contains(where: words.includes)
        let verify = verifyWords.contains(where: words.includes)
        if signIn && verify { return addressWords.contains(where: words.includes) ? .verify : .signIn }
        if signIn { return .signIn }
        if verify { return .verify }
        return nil
    }

    private static func kind(ofURL url: String) -> LinkKind? {
        let lowered = percentDecoded(url.lowercased())
        var rest = Substring(lowered)
        if let scheme = rest.byteRange(of: "://") { rest = rest[scheme.upperBound...] }
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return nil }
        let path = rest[slash...]
        if ["unsubscribe", "unsub", "optout", "opt-out", "opt_out"].contains(where: path.includes) {
            return .unsubscribe
        }
        if ["reset", "forgot", "recover", "password"].contains(where: path.includes) { return .reset }
        if ["magic", "login", "signin", "sign-in", "sign_in", "log-in", "log_in"].contains(where: path.includes) {
            return .signIn
        }
        if ["verify", "verification", "confirm", "activate", "activation", "validate", "validation"].contains(
            where: path.includes)
        {
            return .verify
        }
        // Words of any authentication, weaker than the words of verifying.
        if ["/auth/", "session"].contains(where: path.includes) { return .signIn }
        return nil
    }

    /// `%XX` escapes decoded once (invalid UTF-8 repaired); anything malformed stays as written.
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let input = Array(text.utf8)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                let high = TransferEncodings.hex(input[index + 1]), let low = TransferEncodings.hex(input[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a path segment or a query value of `url` looks like a secret: 12 characters or more with a digit, or
    /// 24 or more.
    static func hasToken(_ url: String) -> Bool {
        var rest = Substring(url)
        if let scheme = rest.byteRange(of: "://") { rest = rest[scheme.upperBound...] }
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return false }
        var piece = 0
        var digit = false
        for character in rest[slash...] {
            if character.isASCII && (character.isLetter || character.isNumber) || "-_.~%+".contains(character) {
                piece += 1
                digit = digit || character.isNumber
                if piece >= 24 || (piece >= 12 && digit) { return true }
            } else {
                piece = 0
                digit = false
            }
        }
        return false
    }

    private static let unsubscribeWords = [
        "unsubscribe", "opt out", "opt-out", "abmelden", "abbestellen", "désabonner", "desabonner", "désinscri",
        "desinscri", "darse de baja", "darte de baja", "cancelar suscripción", "cancelar la suscripción", "desuscrib",
        "descadastr", "cancelar inscrição", "cancelar a inscrição", "cancelar assinatura", "cancella iscrizione",
        "disiscriviti", "退订", "取消订阅", "退訂", "配信停止", "配信解除", "수신거부", "수신 거부",
    ]
    private static let resetWords = [
        "reset", "forgot", "recover", "new password", "change password", "change your password", "zurücksetzen",
        "passwort ändern", "neues passwort", "restablecer", "nueva contraseña", "redefinir", "nova senha",
        "réinitialiser", "reinitialiser", "nouveau mot de passe", "recuperar", "reimposta", "重置", "再設定", "재설정",
        "set a password", "set your password",
    ]
    private static let signInWords = [
        "sign in", "sign-in", "signin", "log in", "log-in", "login", "magic link", "anmelden", "einloggen",
        "iniciar sesión", "iniciar sesion", "inicia sesión", "entrar", "acessar", "fazer login", "se connecter",
        "connexion", "accedi", "inloggen", "登录", "登入", "登錄", "ログイン", "로그인", "sign me in", "log me in",
        "access your account",
    ]
    private static let verifyWords = [
        "verify", "verification", "confirm", "activate", "validate", "bestätigen", "verifizieren", "aktivieren",
        "confirmar", "verificar", "activar", "ativar", "valider", "vérifier", "verifier", "confirmer", "activer",
        "conferma", "verifica", "验证", "驗證", "確認", "認証", "인증", "확인", "complete registration",
        "complete your registration", "finish registration", "finish signing up", "complete sign up",
        "complete signup", "finish setting up your account",
    ]
    /// What a verify link's text names when it verifies an address rather than a sign-in.
    private static let addressWords = [
        "email", "e-mail", "address", "account", "correo", "endereço", "adresse", "konto", "cuenta", "conta",
        "compte", "邮箱", "メール", "이메일",
    ]
    /// Texts of links that follow an order, never a verification or a sign-in.
    private static let notActionWords = [
        "order", "receipt", "invoice", "shipment", "tracking", "track your", "pedido", "commande", "bestellung",
        "rechnung", "factura", "fatura", "recibo", "envío", "livraison", "sendung", "订单", "注文", "주문",
    ]
    private static let genericWords: Set<String> = [
        "click", "here", "this", "link", "the", "below", "button", "tap", "open", "go", "continue", "haz", "clic",
        "aquí", "aqui", "este", "enlace", "clique", "cliquez", "ici", "ce", "lien", "hier", "klicken", "sie", "diesen",
        "clicca", "qui", "点击", "这里", "こちら", "여기",
    ]
}
