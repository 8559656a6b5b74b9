CREATE INDEX "basket_items_basket_idx" ON "basket_items" USING btree ("basket_id");--> statement-breakpoint
CREATE INDEX "flight_bookings_supplier_ref_idx" ON "flight_bookings" USING btree ("supplier_booking_ref");--> statement-breakpoint
CREATE INDEX "hotel_bookings_supplier_hold_idx" ON "hotel_bookings" USING btree ("supplier_hold_id");--> statement-breakpoint
CREATE INDEX "hotel_bookings_confirmation_idx" ON "hotel_bookings" USING btree ("confirmation_number");--> statement-breakpoint
CREATE INDEX "ledger_order_idx" ON "ledger_entries" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "order_items_order_idx" ON "order_items" USING btree ("order_id","id");