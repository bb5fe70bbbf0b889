from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "evalsite"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from annotation.services.logins import (
            tokens_delete_on_password_change,
            username_validator,
        )

        users = get_user_model()
        # The admin's user forms and createsuperuser run the field's validators: one rule.
        username_field = users._meta.get_field("username")
        if username_validator not in username_field.validators:
            username_field.validators.append(username_validator)

        post_save.connect(
            tokens_delete_on_password_change,
            sender=users,
            dispatch_uid="tokens_delete_on_password_change",
        )
