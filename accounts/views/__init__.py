"""The accounts app's pages, one module per concern: `account` (sign up, log in and out,
change the password, a player's public profile) and `tokens` (the signed-in user's API
tokens for programs: list, create, revoke)."""
