-- A store whose owner requires two-factor sign-in of every member (issue 40, lib/auth/storeTwoFactor.ts):
-- a member without a second factor may sign in, but the dashboard answers only what sets one up.
ALTER TABLE "merchants" ADD COLUMN "require_two_factor" BOOLEAN NOT NULL DEFAULT false;
