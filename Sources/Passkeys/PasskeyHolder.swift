/// Whose passkey it is: an owner (`/owner`) or a Mail.td Pro user (`/inbox`), by their id.
public enum PasskeyHolder: Sendable, Hashable {
    /// An owner, by `owners.id`.
    case owner(String)
    /// A Mail.td Pro user, by `mailbox_pro_users.id`.
    case proUser(String)

    /// The `owner_id` and `pro_user_id` columns of the holder (one of them NULL).
    var columns: (owner: String?, proUser: String?) {
        switch self {
        case .owner(let id): (id, nil)
        case .proUser(let id): (nil, id)
        }
    }

    /// The holder of a row's `owner_id` and `pro_user_id`; nil when both are NULL.
    init?(owner: String?, proUser: String?) {
        if let owner {
            self = .owner(owner)
        } else if let proUser {
            self = .proUser(proUser)
        } else {
            return nil
        }
    }
}
