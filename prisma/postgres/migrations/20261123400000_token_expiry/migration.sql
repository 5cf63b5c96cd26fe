-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN "expiresAt" TIMESTAMP(3);
