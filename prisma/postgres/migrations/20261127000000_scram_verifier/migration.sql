-- AlterTable
ALTER TABLE "User" ADD COLUMN "scramVerifier" TEXT;
