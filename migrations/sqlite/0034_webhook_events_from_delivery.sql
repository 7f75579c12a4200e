-- Webhook events are queued by the delivery itself: the mail store's delivery transaction hands each inbox copy of a
-- held recipient to the webhook queue (Sources/Webhooks/WebhookArrivals.swift), with the holder the directory named
-- when it resolved the recipient. The trigger of 0018 (remade by 0023 and 0024) derived the owner again in SQL from
-- three surfaces' tables; it goes. The event is still written in the message's transaction, so a message committed
-- is an event committed.
DROP TRIGGER IF EXISTS mailbox_webhook_enqueue;
