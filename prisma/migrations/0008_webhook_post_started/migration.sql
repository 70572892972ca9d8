-- When the POST of a claimed webhook delivery began (issue 11). A delivery cut
-- off while SENDING with this unset never left the worker and is sent again; one
-- with it set may have reached the receiver and is closed (spec 6: sent once).
ALTER TABLE "webhook_deliveries" ADD COLUMN "post_started_at" TIMESTAMPTZ(6);
